#!/usr/bin/env bash
# comm.abort() from another thread on NCCL (issue 17): two processes, one per GPU, 64 MB AllReduces on device
# buffers; rank 1 aborts 50 ms in, on the communicator of the loop or on its parent while the loop runs on a
# sub-communicator of every rank. Each rank prints what it caught and when; JCOLL_TIMEOUT=30s, so a survivor
# that learned only at the timeout would show it. TCP the same way for comparison. ROUNDS (2).
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export JCOLL_TIMEOUT=30s
{
  step "machine"; nvidia-smi -L; nproc
  for round in $(seq "${ROUNDS:-2}"); do
    for mode in abort abort-child; do
      for t in nccl tcp; do
        step "round $round: $mode on $t"
        JCOLL_TRANSPORT=$t timeout 120 ./jcoll launch -n "$N" -- io.jcoll.bench.FailureDrill "$mode" 2>&1 \
          | grep -E "all in|aborts|CAUGHT|failed first|no failure" | cut -c1-600
      done
    done
  done
} 2>&1 | tee "$OUT/abort.log"
