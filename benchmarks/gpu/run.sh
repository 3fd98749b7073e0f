#!/usr/bin/env bash
# The NCCL proof run, on the GPU host (no JDK or Maven there).
#   here:       bash ../shared/gpu/bundle.sh          (builds .gpu/: a jlinked JRE and every runtime jar)
#   GPU host:   bash benchmarks/gpu/run.sh             (with .gpu carried; results under $OUT)
# Steps: doctor; the demo on NCCL; jcoll perf for AllReduce, AllGather, ReduceScatter
# and All-to-All on device buffers, one process per GPU; PyTorch's NCCL backend
# in the same run and the ratio table; the socket path (P2P and SHM off);
# correctness sweeps over other types and reduce ops; host buffers staged.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
MAX=${MAX_BYTES:-512M}
{
  step "machine"; nvidia-smi -L; java -version 2>&1 | head -1
  step "doctor"; timeout 60 ./jcoll doctor
  demo_step
  latency_step 1
  latency_step 0
  step "torch latency: allreduce 8 bytes, 2000 iterations"
  timeout 120 python3 benchmarks/gpu/torch_perf.py "$OUT/torch-latency.csv" 8 8 2000
  for op in allreduce allgather reducescatter alltoall; do
    step "perf $op"
    timeout 180 ./jcoll perf $op -n "$N" -b 8 -e "$MAX" -f 2 -w 20 -i 20 --csv "$OUT/jcoll-$op.csv"
  done
  step "perf broadcast"; timeout 120 ./jcoll perf broadcast -n "$N" -b 8 -e 64M -f 8 -w 5 -i 20
  step "torch.distributed NCCL, same machine, same run"
  timeout 240 python3 benchmarks/gpu/torch_perf.py "$OUT/torch.csv" 8 $(( ${MAX%M} << 20 )) 20
  step "ratio table"
  python3 benchmarks/gpu/compare.py "$OUT/torch.csv" "$OUT"/jcoll-allreduce.csv "$OUT"/jcoll-allgather.csv \
    "$OUT"/jcoll-reducescatter.csv "$OUT"/jcoll-alltoall.csv
  step "socket path: NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1"
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 timeout 120 ./jcoll perf allreduce -n "$N" -b 8 -e 512M -f 8 -w 3 -i 10
  step "correctness: other types and reduce ops"
  for case in half:sum bfloat16:avg int8:max uint8:min int64:prod double:avg float:prod; do
    t=${case%%:*} o=${case#*:}
    timeout 120 ./jcoll perf allreduce -n "$N" -b 0 -e 1M -f 32 -w 1 -i 2 -d $t -o $o \
      | grep -E "Out of bounds|ERROR|Exception" | sed "s/^/$t $o: /"
  done
  fp8_step
  step "host buffers through NCCL (staged through pinned memory)"
  timeout 120 ./jcoll perf allreduce -n "$N" -b 8 -e 64M -f 8 -w 3 -i 10 --memory host
  example_step
  thread_ranks_step
  tcp_device_step
  drill_step
} 2>&1 | tee "$OUT/run.log"
