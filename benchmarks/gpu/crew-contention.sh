#!/usr/bin/env bash
# Crews on a host whose other cores are busy: benchmarks/compare/ab.sh over jcoll's shared-memory transport with
# HOGS busy processes beside the ranks (one busy loop each; 0: the quiet host), OLD_JARS's build against the
# bundle's, and Open MPI's shared-memory path timed in the same rounds. Each rank of jcoll shares its large
# copies with a crew of threads (4 a rank at 2 and 4 ranks on 32 cores); Open MPI's ranks are one thread each.
#   OLD_JARS=.gpu-old [HOGS="0 16 28"] [RANKS=4] [OPS="allreduce allgather broadcast"] [LO=1M HI=16M FACTOR=4] \
#     [WARM=5 ITERS=50 ROUNDS=3] [LIMIT=200] bash benchmarks/gpu/crew-contention.sh
# Writes $OUT/contention.log (ab.sh's rounds and medians under "=== N busy processes, ...") and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export MPI_BENCH=$PWD/.gpu-tests/mpi_bench
lscpu > "$OUT/lscpu.txt"
variants=("old:JCOLL_CP=$PWD/${OLD_JARS:?OLD_JARS names a directory of the previous build jars}/*:$JCOLL_CP" new)
hogs=()
stop_hogs() { [[ ${#hogs[@]} -eq 0 ]] || kill "${hogs[@]}" 2>/dev/null; hogs=(); }
sweep() {
  trap stop_hogs EXIT  # the loop runs in a pipeline's subshell: its busy processes end with it
  for busy in ${HOGS:-0 16 28}; do
    for ((i = 0; i < busy; i++)); do
      bash -c 'while :; do :; done' &
      hogs+=($!)
    done
    for n in ${RANKS:-4}; do
      for op in ${OPS:-allreduce allgather broadcast}; do
        step "$busy busy processes, $op, $n ranks"
        timeout "${LIMIT:-200}" bash benchmarks/compare/ab.sh -n "$n" -o "$op" -b "${LO:-1M}" -e "${HI:-16M}" \
          -f "${FACTOR:-4}" -w "${WARM:-5}" -i "${ITERS:-50}" -r "${ROUNDS:-3}" --transport shm "${variants[@]}"
      done
    done
    stop_hogs
  done
}
sweep 2>&1 | tee "$OUT/contention.log"
