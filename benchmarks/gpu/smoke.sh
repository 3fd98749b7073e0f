#!/usr/bin/env bash
# A short check on the GPU host after a change to the NCCL path: the demo (every
# collective verified on device buffers), 8-byte latency, an All-to-All sweep with
# its data check, and the failure drill. Same setup as run.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
source .gpu/env.sh
export NCCL_NVLS_ENABLE=0 JCOLL_TIMEOUT=120s
N=$(nvidia-smi -L | wc -l)
step() { echo; echo "=== $*"; }
{
  step "demo"; timeout 120 ./jcoll demo -n "$N"
  step "latency: allreduce 8 bytes"; timeout 120 ./jcoll perf allreduce -n "$N" -b 8 -e 8 -w 5000 -i 2000
  step "alltoall sweep"; timeout 120 ./jcoll perf alltoall -n "$N" -b 8 -e 256M -f 8 -w 20 -i 20
  step "example: device buffers on the caller's own stream"
  timeout 120 ./jcoll launch -n "$N" -- io.jcoll.examples.DeviceAllReduce
  step "ranks as threads of one JVM, one GPU each"
  timeout 120 java -cp "$JCOLL_CP" io.jcoll.bench.ThreadRanks "$N"
  step "fp8 on NCCL"
  for case in allreduce:f8e4m3:sum allreduce:f8e5m2:max reducescatter:f8e4m3:avg allgather:f8e5m2:sum; do
    IFS=: read -r op t o <<< "$case"
    timeout 120 ./jcoll perf $op -n "$N" -b 0 -e 1M -f 32 -w 1 -i 2 -d $t -o $o | grep -E "Out of bounds|Exception" | sed "s/^/$op $t $o: /"
  done
  step "device buffers through the TCP transport (staged a segment at a time)"
  for op in allreduce alltoall; do
    JCOLL_TRANSPORT=tcp timeout 120 ./jcoll perf $op -n "$N" -b 8 -e 64M -f 8 -w 3 -i 10 --memory device
  done
  step "failure drill"; JCOLL_TIMEOUT=5s JCOLL_LAUNCH_GRACE=30 timeout 120 ./jcoll launch -n "$N" -- io.jcoll.bench.FailureDrill 1
} 2>&1 | grep -v "WARNING\|^\[.\] $" | tee "$OUT/smoke.log"
