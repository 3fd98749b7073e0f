#!/usr/bin/env bash
# 8 ranks on the GPU host's 32 cores, where every rank's channels together fill the cores and the shared host's
# noise moved single runs by 1.6x: AllReduce and All-to-All at 8-64 MB against Open MPI over TCP and Gloo in ROUNDS
# alternated rounds (medians and the range of the per-round ratios).
#   ROUNDS=3 bash benchmarks/gpu/eight-ranks.sh [compare.sh options]   (writes $OUT/compare-*-rounds.{log,tgz})
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/steps.sh"
TAG=rounds RANKS=8 OPS="allreduce alltoall" LIMIT=${LIMIT:-300} \
  bash "$here/cpu-compare.sh" -b 8M -e 64M -f 2 -w 5 -i 50 -r "${ROUNDS:-3}" "$@"
