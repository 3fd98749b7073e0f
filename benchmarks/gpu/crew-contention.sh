#!/usr/bin/env bash
# Crews on a host whose other cores are busy: benchmarks/gpu/ab.sh over jcoll's shared-memory transport (the
# bundle's build, OLD_JARS's build and VARIANTS where given, Open MPI's shared-memory path in the same rounds) with
# HOGS busy processes beside the ranks (one busy loop each; 0: the quiet host). Each rank of jcoll shares its large
# copies with a crew of threads (4 a rank at 2 and 4 ranks on 32 cores); Open MPI's ranks are one thread each.
#   [OLD_JARS=.gpu-old] [VARIANTS="crew2:JCOLL_SHM_THREADS=2"] [HOGS="0 16 28"] [RANKS=4] \
#     [OPS="allreduce allgather broadcast"] [LO=1M HI=16M FACTOR=4] [WARM=5 ITERS=50 ROUNDS=3] [LIMIT=200] \
#     bash benchmarks/gpu/crew-contention.sh
# Writes $OUT/busy-N/ab.log (and lscpu.txt) for each N of HOGS.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export TRANSPORT=shm RANKS=${RANKS:-4} OPS=${OPS:-allreduce allgather broadcast} LO=${LO:-1M} HI=${HI:-16M} \
  FACTOR=${FACTOR:-4}
hogs=()
trap '[[ ${#hogs[@]} -eq 0 ]] || kill "${hogs[@]}" 2>/dev/null' EXIT
for busy in ${HOGS:-0 16 28}; do
  for ((i = 0; i < busy; i++)); do
    bash -c 'while :; do :; done' &
    hogs+=($!)
  done
  OUT=$OUT/busy-$busy bash benchmarks/gpu/ab.sh
  [[ ${#hogs[@]} -eq 0 ]] || kill "${hogs[@]}" 2>/dev/null
  hogs=()
done
