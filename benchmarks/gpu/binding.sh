#!/usr/bin/env bash
# NCCL's socket path (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1, the path between nodes without InfiniBand) under
# mpirun, one process per GPU, device buffers, 64-256 MB AllReduce (issue 22): the README's command
# (--bind-to none) and mpirun's default binding (one core a rank), where jcoll widens each rank to its GPU's NUMA
# node, each beside the C loop (bw_bench.c, nccl-tests' measurement) under the same mpirun, in alternated rounds.
# ROUNDS (4) rounds, ITERS (20) timed calls per size.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
socket_path 4
{
  step "machine"; nvidia-smi -L; nproc; lscpu | grep -i "numa node"
  nvidia-smi topo -m | head -4
  step "mpirun default binding, C allreduce"
  socket_mpi "" /tmp/bw_bench allreduce "$N" $(c_sizes)
  for round in $(seq "$ROUNDS"); do
    socket_readme_round "$round"
    step "round $round: mpirun -np $N ./jcoll perf allreduce (default binding: widened)"
    socket_mpi "" ./jcoll perf allreduce "${SIZES[@]}" | socket_rows
  done
} 2>&1 | tee "$OUT/binding.log"
