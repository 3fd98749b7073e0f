#!/usr/bin/env bash
# The examples on the GPU host: data-parallel training with its buckets AllReduced in GPU memory by NCCL
# (launched by jcoll and by mpirun), and the host-memory examples with NCCL chosen (staged through pinned memory).
set -uo pipefail
source "$(dirname "$0")/steps.sh"
{
  step "DataParallelTraining --check --device, ./jcoll launch -n $N"
  timeout 180 ./jcoll launch -n "$N" -- io.jcoll.examples.DataParallelTraining --check --device
  step "DataParallelTraining --check --device, mpirun -np $N"
  timeout 180 mpirun --allow-run-as-root --bind-to none -np "$N" java -cp "$JCOLL_CP" \
    io.jcoll.examples.DataParallelTraining --check --device
  for ex in MixtureOfExperts ShardedTraining; do
    step "$ex, ./jcoll launch -n $N (host memory through NCCL)"
    timeout 180 ./jcoll launch -n "$N" -- io.jcoll.examples.$ex
  done
} 2>&1 | grep -vE "WARNING|INFO: jcoll set|NcclEnvironment doPrepare" | tee "$OUT/examples.log"
