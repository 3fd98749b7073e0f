#!/usr/bin/env bash
# Small shared-memory calls by where the ranks run (issue 19): jcoll's rank JVMs left to the scheduler, as `jcoll
# perf` starts them, or each pinned (every thread) to one core right after it starts: cores 0, 1, ... ("near") or
# spread over the host ("far"); Open MPI's shared-memory path with mpirun's default binding (2 ranks: one core
# each, 0 and 1) and with --bind-to none. Alternated in ROUNDS rounds, every system in each.
#   [ROUNDS=3] [RANKS="2 4"] [OPS="broadcast allreduce"] [LO=8 HI=64 FACTOR=8] [WARM=20000 ITERS=100000]
#     [JIT_WARMUP=2000000] bash benchmarks/gpu/placement.sh
# Writes $OUT/placement.log: one line per round, system, op, ranks and size with the time per call in us (the
# slowest rank's mean, as jcoll perf and mpi_bench report it), and what each pinned rank's affinity was.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
MPI_BENCH=$PWD/.gpu-tests/mpi_bench
cores=$(nproc)
lscpu > "$OUT/lscpu.txt"
sizes() { echo "${LO:-8} ${HI:-64} ${FACTOR:-8}"; }
source benchmarks/compare/openmpi.sh  # mpirun_shm: Open MPI's default path on one host, as ab.sh runs it

# pins each of the N rank JVMs of the running jcoll perf (found by their RANK) to one core, every thread: rank r to
# core r, or with SPREAD to core r * cores / N
pin_ranks() {  # N SPREAD(0|1)
  local n=$1 spread=$2 pinned=0 deadline=$((SECONDS + 20)) pid r core
  while (( pinned < n && SECONDS < deadline )); do
    pinned=0
    for pid in $(pgrep -f "io.jcoll.bench.Perf"); do
      r=$(tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | sed -n 's/^RANK=//p')
      [[ -n $r ]] || continue
      core=$(( spread ? r * (cores / n) : r ))
      if [[ ! -e $work/pinned-$pid ]]; then
        taskset -a -p -c "$core" "$pid" > /dev/null && touch "$work/pinned-$pid" \
          && echo "# pinned rank $r (pid $pid) to core $core" >> "$work/pins"
      fi
      [[ -e $work/pinned-$pid ]] && pinned=$((pinned + 1))
    done
    sleep 0.05
  done
}

jcoll_run() {  # OP RANKS PIN(none|near|far)
  local csv=$work/jcoll.csv
  rm -f "$csv"
  # shellcheck disable=SC2046
  timeout 120 ./jcoll perf "$1" -n "$2" $(sizes | awk '{print "-b " $1 " -e " $2 " -f " $3}') -w "${WARM:-20000}" \
    -i "${ITERS:-100000}" --jit-warmup "${JIT_WARMUP:-2000000}" --transport shm --csv "$csv" > "$work/jcoll.out" 2>&1 &
  local launcher=$!
  case $3 in
    near) pin_ranks "$2" 0 ;;
    far) pin_ranks "$2" 1 ;;
  esac
  wait "$launcher" || { echo "# jcoll $1 $2 $3 failed:"; tail -5 "$work/jcoll.out" | sed 's/^/#   /'; }
  [[ -f $csv ]] && awk -F, '!/^system,/ && NF >= 8 {print $6, $8}' "$csv"
}

mpi_run() {  # OP RANKS BINDING(default|none)
  local bind=()
  [[ $3 == none ]] && bind=(--bind-to none)
  # shellcheck disable=SC2046
  timeout 120 "${mpirun_shm[@]}" "${bind[@]}" --report-bindings -np "$2" "$MPI_BENCH" "$1" $(sizes) "${WARM:-20000}" \
    "${ITERS:-100000}" 2> "$work/mpi.err" | awk -F, '!/^system,/ && NF >= 8 {print $6, $8}'
  grep -o "rank [0-9]* bound to [^]]*\]\|not bound" "$work/mpi.err" | sed "s/^/# mpi $3: /" | sort -u >> "$work/pins"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  echo "# $(date -u +%FT%TZ) $(uname -n), $cores cores, checkout $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "# sizes $(sizes), -w ${WARM:-20000} -i ${ITERS:-100000}, jcoll --jit-warmup ${JIT_WARMUP:-2000000}"
  for n in ${RANKS:-2 4}; do
    for op in ${OPS:-broadcast allreduce}; do
      for r in $(seq 1 "${ROUNDS:-3}"); do
        : > "$work/pins"
        for pin in none near far; do
          jcoll_run "$op" "$n" "$pin" | sed "s/^/$r jcoll-$pin $op $n /"
        done
        for bind in default none; do
          mpi_run "$op" "$n" "$bind" | sed "s/^/$r mpi-$bind $op $n /"
        done
        cat "$work/pins"
      done
    done
  done
} 2>&1 | tee "$OUT/placement.log"
