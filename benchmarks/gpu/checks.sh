#!/usr/bin/env bash
# Issue 7 on the GPU host: mismatched collectives under NCCL with and without JCOLL_DEBUG=check, what the check
# costs per call, and the GPU JUnit suite (whose randomBadArgumentsNeverReachNccl throws bad arguments, freed device
# memory and the other GPU's memory at the NCCL transport). Needs .gpu/ and .gpu-tests/ (bundle-tests.sh).
set -uo pipefail
source "$(dirname "$0")/steps.sh"
{
  export JCOLL_TIMEOUT=5s
  step "mismatch (rank 1 broadcasts, rank 0 all-reduces), JCOLL_DEBUG=check"
  JCOLL_DEBUG=check timeout 60 ./jcoll launch -n 2 -- io.jcoll.bench.FailureDrill mismatch 2>&1 | grep -vE "WARNING|INFO"
  echo "launcher exit ${PIPESTATUS[0]}"
  step "the same mismatch without the check"
  timeout 60 ./jcoll launch -n 2 -- io.jcoll.bench.FailureDrill mismatch 2>&1 | grep -vE "WARNING|INFO"
  echo "launcher exit ${PIPESTATUS[0]}"
  export JCOLL_TIMEOUT=120s
  for debug in "" check; do
    step "allreduce 8 B to 1 MB, JCOLL_DEBUG=$debug"
    JCOLL_DEBUG=$debug timeout 120 ./jcoll perf allreduce -n 2 -b 8 -e 1M -f 8 -w 3000 -i 500
  done
  step "GPU JUnit suite"
  timeout 300 bash benchmarks/gpu/junit.sh
} 2>&1 | tee "$OUT/checks.log"
