#!/usr/bin/env bash
# Single copy where each rank copies alone (issue 19's development-machine figure): 2 ranks on two CPUs of a quiet
# host (every process under `taskset -c 0,1`, so jcoll sees two cores and makes no crews, as on the 2-vCPU VM),
# the slots (JCOLL_SHM_SINGLE_COPY=off) against reading the peers' buffers from SC_MIN (128K) for Broadcast,
# AllGather and All-to-All, and Open MPI's shared-memory path, alternated in ROUNDS rounds (benchmarks/gpu/ab.sh).
# FORMS names op:place pairs (out or in). Two passes, as shm-two-cpus.sh: 128-512 KB with 2000 untimed and 500
# timed calls, 2-32 MB with 300 and 100 (on two CPUs the JIT compiler shares the cores with the spinning ranks).
# FOUR=1 adds Broadcast at 4 ranks on four CPUs (three readers of one root, each alone); FOUR_OP names another
# collective for that run. VARIANTS replaces the two variants (e.g. the AllReduce path's threshold:
# "slots:JCOLL_SHM_SINGLE_COPY_REDUCE_MIN=1G read:JCOLL_SHM_SINGLE_COPY_REDUCE_MIN=128K").
#   [FORMS="broadcast:out broadcast:in allgather:out allgather:in alltoall:out"] [PASSES="small large"] [ROUNDS=3]
#   [FOUR=1] [FOUR_OP=broadcast] [VARIANTS=...] bash benchmarks/gpu/two-cpus-single-copy.sh
#   (carry .gpu and .gpu-tests; writes $OUT/two-cpus.log)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
m=${SC_MIN:-128K}
variants=${VARIANTS:-"off:JCOLL_SHM_SINGLE_COPY=off sc:JCOLL_SHM_SINGLE_COPY_MIN=$m,JCOLL_SHM_SINGLE_COPY_GATHER_MIN=$m,JCOLL_SHM_SINGLE_COPY_BROADCAST_MIN=$m"}
run() {  # NAME CPUS RANKS OP PLACE PASS
  local sizes place=()
  [[ $5 == in ]] && place=(IN_PLACE=1)
  case $6 in
    small) sizes=(LO=128K HI=512K WARM=2000 ITERS=500) ;;
    large) sizes=(LO=2M HI=32M WARM=300 ITERS=100) ;;
  esac
  mkdir -p "$OUT/$1"
  env OUT="$OUT/$1" TRANSPORT=shm RANKS="$3" OPS="$4" FACTOR=4 ROUNDS="${ROUNDS:-3}" LIMIT="${LIMIT:-150}" \
    NO_NEW=1 VARIANTS="$variants" "${place[@]}" "${sizes[@]}" taskset -c "$2" bash benchmarks/gpu/ab.sh > /dev/null 2>&1
  echo "=== $1"; cat "$OUT/$1/ab.log"
}
for pass in ${PASSES:-small large}; do
  for form in ${FORMS:-broadcast:out broadcast:in allgather:out allgather:in alltoall:out}; do
    run "${form/:/-}-$pass" 0,1 2 "${form%%:*}" "${form#*:}" "$pass"
  done
done > "$OUT/two-cpus.log"
four=${FOUR_OP:-broadcast}
[[ -n ${FOUR:-} ]] && run "$four-4-ranks-large" 0-3 4 "$four" out large >> "$OUT/two-cpus.log"
grep -E "^=== |medians" "$OUT/two-cpus.log"
