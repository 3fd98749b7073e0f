#!/usr/bin/env bash
# Where should AllReduce read its peers' inputs (SingleCopy.allReduce) by default? The slots
# (JCOLL_SHM_SINGLE_COPY_REDUCE_MIN=1G) against reading from 128 KB, at 2-32 MB, out of place, jcoll alone (Open
# MPI's shared-memory path took 1.3-3.4x the slots' time at these sizes on two CPUs of this host:
# two-cpus-single-copy.sh), alternated in ROUNDS rounds (benchmarks/gpu/ab.sh), in three layouts of ranks and cores:
#   four-alone:  4 ranks under `taskset -c 0-3` (one core each: no crews, every rank copies alone);
#   eight-alone: 8 ranks on all 16 cores (two cores each, under auto's floor of 3: no crews);
#   two-crews:   2 ranks on all 16 cores (crews of 4 threads each, auto's most).
#   [LAYOUTS="four-alone eight-alone two-crews"] [ROUNDS=3] [LIMIT=200] bash benchmarks/gpu/reduce-read.sh
#   (carry .gpu; writes $OUT/LAYOUT/ab.log and $OUT/reduce-read.log)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
run() {  # LAYOUT RANKS [CPUS]
  local cpus=(); [[ -n ${3:-} ]] && cpus=(taskset -c "$3")
  mkdir -p "$OUT/$1"
  env OUT="$OUT/$1" TRANSPORT=shm RANKS="$2" OPS=allreduce LO=2M HI=32M FACTOR=4 WARM=300 ITERS=100 \
    ROUNDS="${ROUNDS:-3}" LIMIT="${LIMIT:-200}" NO_NEW=1 NO_MPI=1 \
    VARIANTS="slots:JCOLL_SHM_SINGLE_COPY_REDUCE_MIN=1G read:JCOLL_SHM_SINGLE_COPY_REDUCE_MIN=128K" \
    "${cpus[@]}" bash benchmarks/gpu/ab.sh > /dev/null 2>&1
  echo "=== $1"; cat "$OUT/$1/ab.log"
}
for layout in ${LAYOUTS:-four-alone eight-alone two-crews}; do
  case $layout in
    four-alone) run four-alone 4 0-3 ;;
    eight-alone) run eight-alone 8 ;;
    two-crews) run two-crews 2 ;;
  esac
done > "$OUT/reduce-read.log"
grep -E "^=== |medians" "$OUT/reduce-read.log"
