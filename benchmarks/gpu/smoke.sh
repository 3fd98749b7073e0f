#!/usr/bin/env bash
# A short check on the GPU host after a change to the NCCL path: the demo, 8-byte
# latency, an All-to-All sweep with its data check, the user-stream example, thread
# ranks, fp8, device buffers over TCP, and the failure drill. Same setup as run.sh.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
{
  demo_step
  latency_step 1
  step "alltoall sweep"; timeout 120 ./jcoll perf alltoall -n "$N" -b 8 -e 256M -f 8 -w 20 -i 20
  example_step
  thread_ranks_step
  fp8_step
  tcp_device_step
  drill_step
} 2>&1 | grep -v "WARNING\|^\[.\] $" | tee "$OUT/smoke.log"
