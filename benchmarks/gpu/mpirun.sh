#!/usr/bin/env bash
# mpirun-launched jcoll on the GPU host: NCCL with one process per GPU and nothing configured but
# mpirun itself (the rendezvous goes through MPI), the demo and the example, and host memory over the
# tcp and mpi transports side by side on the host's CPUs (QUICK=1 skips those).
set -uo pipefail
source "$(dirname "$0")/steps.sh"
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
{
  step "Open MPI here"; mpirun --version | head -1; ldconfig -p | grep -E "libmpi\.so" | head -3
  step "mpirun -np $N ./jcoll perf allreduce (NCCL, device buffers, one process per GPU)"
  timeout 240 "${mpi[@]}" -np "$N" ./jcoll perf allreduce -b 8 -e 512M -f 4 -w 50 -i 100
  step "mpirun -np $N ./jcoll demo"; timeout 120 "${mpi[@]}" -np "$N" ./jcoll demo | tail -3
  step "mpirun -np 4 the example (host buffers)"
  timeout 120 "${mpi[@]}" -np 4 java -cp "$JCOLL_CP" io.jcoll.examples.MpiLaunch
  [[ ${QUICK:-0} == 1 ]] && exit 0 # QUICK=1: the GPU steps only
  for n in 2 4 8; do
    for t in tcp mpi; do
      step "host memory, $n ranks, JCOLL_TRANSPORT=$t"
      timeout 180 "${mpi[@]}" -np "$n" ./jcoll perf allreduce -b 8 -e 64M -f 8 -w 50 -i 100 --transport "$t" \
        --memory host | grep -E "^ +[0-9]|Avg bus|network"
    done
  done
} 2>&1 | tee "$OUT/mpirun.log"
