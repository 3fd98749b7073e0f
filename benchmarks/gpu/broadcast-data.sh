#!/usr/bin/env bash
# Broadcast against Open MPI once mpi_bench's root sends data (e4df561: it broadcast a buffer never written, the
# kernel's zero page, cached at every size), and the shared-memory figures that needed timing again with it.
# Each PART is one command of the lease; every ab.sh run is cut at LIMIT seconds (its finished rounds kept).
#   two: 2 ranks under `taskset -c 0,1` (each rank copies alone, as on the 2-vCPU VM): Broadcast in place, then out
#        of place, the bundle ("new") against another build's jcoll-shm (OLD_JARS, "old": on 2026-11-28 the bundle
#        was a trial reading in-place roots by single copy, "old" 58e9454's, which keeps them on the slots) and Open
#        MPI's shared-memory path. 128 KB-32 MB.
#   two-rest: the same two CPUs, AllReduce, ReduceScatter, AllGather and All-to-All out of place (PLACE=in: in
#        place) against Open MPI, 128 KB-32 MB: the rest of the development machine's figure on a quiet host.
#   all: every core, 2, 4 and 8 ranks, Broadcast out of place and in place against Open MPI, 1-64 MB.
#   rest: every core, what the slots that grow with the ranks (c581acc, 7b9e67c) left untimed: AllGather at 8
#        ranks, AllGather, All-to-All and ReduceScatter at 4, 1-64 MB, against Open MPI.
#   OLD_JARS=.gpu-old PART=two|two-rest|all|rest [ROUNDS=3] bash benchmarks/gpu/broadcast-data.sh
#     (carry .gpu, .gpu-old, .gpu-tests with mpi_bench built from this checkout; writes $OUT/PART/ab.log ...)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
rounds=${ROUNDS:-3}
ab() {  # NAME [VAR=VALUE...] [COMMAND...]: benchmarks/gpu/ab.sh with the shared-memory transport, logged to NAME/ab.log
  local name=$1; shift
  mkdir -p "$OUT/$name"
  env OUT="$OUT/$name" TRANSPORT=shm ROUNDS="$rounds" "$@" bash benchmarks/gpu/ab.sh > /dev/null 2>&1
  echo "=== $name"; grep -E "medians" "$OUT/$name/ab.log"
}
case ${PART:-two} in
  two)
    ab two-in-place RANKS=2 OPS=broadcast LO=128K HI=32M FACTOR=4 WARM=500 ITERS=200 LIMIT=200 IN_PLACE=1 \
      OLD_JARS="${OLD_JARS:-.gpu-old}" taskset -c 0,1
    ab two-out-of-place RANKS=2 OPS=broadcast LO=128K HI=32M FACTOR=4 WARM=500 ITERS=200 LIMIT=150 \
      OLD_JARS="${OLD_JARS:-.gpu-old}" taskset -c 0,1 ;;
  two-rest)  # out of place; PLACE=in for in place
    ab "two-rest-${PLACE:-out}-of-place" RANKS=2 OPS="allreduce reducescatter allgather alltoall" LO=128K HI=32M \
      FACTOR=4 WARM=500 ITERS=200 LIMIT=120 ${PLACE:+IN_PLACE=1} taskset -c 0,1 ;;
  all)
    ab all-out-of-place RANKS="2 4 8" OPS=broadcast LO=1M HI=64M FACTOR=4 WARM=5 ITERS=50 LIMIT=90
    ab all-in-place RANKS="2 4 8" OPS=broadcast LO=1M HI=64M FACTOR=4 WARM=5 ITERS=50 LIMIT=90 IN_PLACE=1 ;;
  rest)
    ab rest-8 RANKS=8 OPS=allgather LO=1M HI=64M FACTOR=4 WARM=5 ITERS=50 LIMIT=90
    ab rest-4 RANKS=4 OPS="allgather alltoall reducescatter" LO=1M HI=64M FACTOR=4 WARM=5 ITERS=50 LIMIT=80 ;;
esac
