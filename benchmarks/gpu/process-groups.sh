#!/usr/bin/env bash
# Process groups on NCCL (issue 17), on the GPU host, one process per GPU, device buffers:
#   here:       bash ../shared/gpu/bundle.sh
#   GPU host:   bash benchmarks/gpu/process-groups.sh        (with .gpu carried; results under $OUT)
# 1. correctness: reduce, gather, scatter, alltoallv (skewed), sendrecv through `jcoll perf` (every size
#    checked element by element), a sweep on sub-communicators (ncclCommSplit), the examples on NCCL;
# 2. figures, jcoll and its peers in alternated rounds: alltoallv with equal counts against alltoall and
#    nccl-tests' alltoall_perf (where nccl-tests is installed), alltoallv skewed against PyTorch's
#    all_to_all_single with the same split sizes, sendrecv against sendrecv_perf and batch_isend_irecv.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ROUNDS=${ROUNDS:-2}
nccl_test() {  # the nccl-tests binary $1, if installed
  for d in ${NCCL_TESTS:-} /opt/nccl-tests/build /usr/local/nccl-tests/build /opt/nccl-tests /usr/local/bin /usr/bin; do
    [ -x "$d/$1" ] && { echo "$d/$1"; return; }
  done
  command -v "$1" || true
}
mpirun_np() { mpirun --allow-run-as-root --bind-to none -np "$N" -x NCCL_NVLS_ENABLE=0 "$@"; }
{
  step "machine"; nvidia-smi -L; java -version 2>&1 | head -1
  A2A=$(nccl_test alltoall_perf); SR=$(nccl_test sendrecv_perf)
  echo "nccl-tests: alltoall_perf=${A2A:-absent} sendrecv_perf=${SR:-absent}"
  step "correctness on NCCL, device buffers (every size checked)"
  for op in reduce gather scatter sendrecv; do
    timeout 120 ./jcoll perf $op -n "$N" -b 8 -e 64M -f 8 -w 3 -i 10 -r 1 | grep -E "Out of bounds|Exception|rank"
  done
  timeout 120 ./jcoll perf alltoallv -n "$N" -b 8 -e 64M -f 8 -w 3 -i 10 --skew 0.5 | grep -E "Out of bounds|Exception|skew"
  timeout 120 ./jcoll perf reduce -n "$N" -b 0 -e 1M -f 32 -w 1 -i 2 -d bfloat16 -o avg | grep -E "Out of bounds|Exception"
  step "a sweep on sub-communicators of one rank each (ncclCommSplit)"
  timeout 120 ./jcoll perf allreduce -n "$N" -b 8 -e 8M -f 8 -w 3 -i 10 --group-size 1 | grep -E "group|Out of bounds|Exception"
  step "examples on NCCL (host buffers, staged)"
  for ex in MixtureOfExperts TwoDimensionalParallel PipelineParallel HybridSharded; do
    timeout 120 ./jcoll launch -n "$N" -- io.jcoll.examples.$ex 2>&1 | tail -2
  done
  for round in $(seq "$ROUNDS"); do
    step "round $round: alltoall, alltoallv (equal counts), nccl-tests alltoall_perf, 32M-512M"
    timeout 180 ./jcoll perf alltoall -n "$N" -b 32M -e 512M -f 2 -w 10 -i 20 --csv "$OUT/a2a-$round.csv" | perf_rows
    timeout 180 ./jcoll perf alltoallv -n "$N" -b 32M -e 512M -f 2 -w 10 -i 20 --csv "$OUT/a2av-$round.csv" | perf_rows
    [ -n "$A2A" ] && timeout 180 mpirun_np "$A2A" -b 32M -e 512M -f 2 -w 10 -n 20 -g 1 | grep -E "^ +[0-9]"
    step "round $round: alltoallv skew 0.5 and PyTorch all_to_all_single with the same splits, sendrecv"
    timeout 180 ./jcoll perf alltoallv -n "$N" -b 1M -e 256M -f 4 -w 10 -i 20 --skew 0.5 | perf_rows
    timeout 180 ./jcoll perf sendrecv -n "$N" -b 1M -e 256M -f 4 -w 10 -i 20 | perf_rows
    [ -n "$SR" ] && timeout 180 mpirun_np "$SR" -b 1M -e 256M -f 4 -w 10 -n 20 -g 1 | grep -E "^ +[0-9]"
    timeout 240 python3 benchmarks/gpu/torch_groups.py "$OUT/torch-groups-$round.csv" 0.5 8 1048576 268435456 20
  done
} 2>&1 | tee "$OUT/process-groups.log"
