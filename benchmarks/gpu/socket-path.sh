#!/usr/bin/env bash
# NCCL's socket path (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1, the path between nodes without InfiniBand) on the
# GPU host, device buffers, jcoll against the same loop in C (bw_bench.c: nccl-tests' measurement) in
# alternated rounds (issues 18 and 22):
# 1. under mpirun with the README's command as written (--bind-to none), and the C peer under the same
#    mpirun, with and without mpirun's default binding;
# 2. under `jcoll launch` on one host: jcoll's default (NCCL's own interface choice since issue 22) against
#    NCCL_SOCKET_IFNAME=lo (jcoll's old default), and the C peer with each;
# 3. All-to-All the same way under `jcoll launch`.
# ROUNDS (3) rounds, ITERS (20) timed calls per size; LO=0 leaves out the runs with lo; OPS (allreduce alltoall)
# the ops of 2 and 3; README=0 leaves out 1.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
socket_path 3
{
  step "machine"; nvidia-smi -L; nproc
  if [[ ${LO:-1} == 1 ]]; then
    step "mpirun (default binding: one core per rank), C allreduce"
    socket_mpi "" /tmp/bw_bench allreduce "$N" $(c_sizes)
  fi
  for round in $(seq "$ROUNDS"); do
    [[ ${README:-1} == 1 ]] && socket_readme_round "$round"
    for op in ${OPS:-allreduce alltoall}; do
      step "round $round: jcoll launch, $op, jcoll's default interface choice"
      timeout 150 ./jcoll perf $op -n "$N" "${SIZES[@]}" | socket_rows
      step "round $round: C $op, NCCL's default interface"
      timeout 120 /tmp/bw_bench $op "$N" $(c_sizes)
      [[ ${LO:-1} == 0 ]] && continue
      step "round $round: jcoll launch, $op, NCCL_SOCKET_IFNAME=lo"
      NCCL_SOCKET_IFNAME=lo timeout 150 ./jcoll perf $op -n "$N" "${SIZES[@]}" | socket_rows
      step "round $round: C $op, NCCL_SOCKET_IFNAME=lo"
      NCCL_SOCKET_IFNAME=lo timeout 120 /tmp/bw_bench $op "$N" $(c_sizes)
    done
  done
} 2>&1 | tee "$OUT/socket-path.log"
