#!/usr/bin/env bash
# NCCL communicator creation (non-blocking, then the blocking twin): correctness, time to form a job,
# the 8-byte latency in both modes, the failure drill, the GPU JUnit suite.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
{
  step "demo, timed (JVM start, rendezvous, NCCL creation, every collective checked)"
  start=$(date +%s%N); timeout 120 ./jcoll demo -n "$N"; echo "demo exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms"
  step "demo with JCOLL_NCCL_BLOCKING=0, timed"
  start=$(date +%s%N); JCOLL_NCCL_BLOCKING=0 timeout 120 ./jcoll demo -n "$N" | tail -2; echo "$(( ($(date +%s%N) - start) / 1000000 )) ms"
  latency_step 1
  latency_step 0
  thread_ranks_step
  drill_step
  step "doctor --run 2"; timeout 120 ./jcoll doctor --run 2 | tail -4
  step "JUnit: the GPU suite"; timeout 300 bash benchmarks/gpu/junit.sh 2>&1 | tail -8
} 2>&1 | tee "$OUT/creation.log"
