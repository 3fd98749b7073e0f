#!/usr/bin/env bash
# Open MPI's Broadcast with mpi_bench before e4df561 (its root broadcast memory it never wrote: the kernel's zero
# page) and after (written memory), alternated in ROUNDS rounds on the shared-memory path, 2 ranks, 2-32 MB; then
# what one process_vm_readv of written memory and a memcpy cost here (cma_read.c), 32 KB to 8 MB calls.
#   [ROUNDS=2] benchmarks/compare/zero-page.sh > OUT.txt     (needs mpicc, mpirun, cc and git)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
git -C "$here" show e4df561^:benchmarks/compare/mpi_bench.c > "$work/zero.c"
mpicc -O2 -o "$work/zero-page" "$work/zero.c"
mpicc -O2 -o "$work/written" "$here/mpi_bench.c"
cc -O2 -o "$work/cma_read" "$here/cma_read.c"
echo "# $(date -u +%FT%TZ) $(hostname), $(nproc) cores, $(mpirun --version | head -1)"
echo "# system,op,ranks,type,redop,bytes,count,time_us,algbw_gbs,busbw_gbs,wrong"
for round in $(seq "${ROUNDS:-2}"); do
  for bench in zero-page written; do
    echo "# round $round, mpi_bench $bench"
    mpirun --allow-run-as-root -np 2 --mca btl self,vader "$work/$bench" broadcast 2097152 33554432 4 300 100
  done
done
for chunk in 32768 262144 8388608; do
  "$work/cma_read" 8388608 "$chunk" 100 0
done
"$work/cma_read" 8388608 8388608 100 1
