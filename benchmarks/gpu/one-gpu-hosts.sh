#!/usr/bin/env bash
# Hosts of one GPU (the kinds lent now) standing in for several: each mpirun rank is a host of its own to NCCL
# (as-host.sh: NCCL_HOSTID, all ranks on GPU 0), so NCCL connects them over its network path, sockets here, the
# path between nodes without InfiniBand.
# 1. The job-wide doctor (issue 23) on 3 such hosts: the TCP link test and NCCL's send/recv between every pair;
#    then the same with host 2's NCCL told to use an interface that does not exist (a node set up wrong).
# 2. NCCL's socket path under mpirun (issue 22), 64-256 MB AllReduce, rounds alternating jcoll and the C loop
#    (bw_bench.c, nccl-tests' measurement): the README's command (--bind-to none), and mpirun's default binding
#    (one core a rank), where jcoll widens its ranks to their node's CPUs; once each, C under the default binding
#    and jcoll keeping it (JCOLL_CPU_AFFINITY=keep).
# ROUNDS (3) rounds, ITERS (20) timed calls per size.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
nccl_c_bench bw_bench
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-20}
SIZES=(-b 64M -e 256M -f 2 -w 3 -i "$ITERS")
c_sizes() { echo "64M 256M 2 3 $ITERS"; }
rows() { grep -E "^(\[[0-9]\])? *[0-9]+ +[0-9]+ +float|network|WARNING|widened|Exception|rror" | cut -c1-400; }
mpi() {  # $1: ranks, $2: binding; then the command
  local n=$1 bind=$2; shift 2
  export BW_ID_FILE=/tmp/bw_bench.$$.$RANDOM.id
  timeout 150 mpirun --allow-run-as-root $bind -np "$n" -x NCCL_NVLS_ENABLE -x BW_ID_FILE -x JCOLL_TIMEOUT \
    -x AS_HOST_JCOLL -x HOST2_ENV -x JCOLL_CPU_AFFINITY benchmarks/gpu/as-host.sh "$@"
}
{
  step "machine"; nvidia-smi -L; nproc; lscpu | grep -i "numa node"
  export AS_HOST_JCOLL=1 JCOLL_TIMEOUT=60s
  step "doctor across 3 one-GPU hosts"
  mpi 3 "--bind-to none" java -cp "$JCOLL_CP" io.jcoll.internal.Doctor --run; echo "exit $?"
  step "doctor across 3 hosts, host 2's NCCL on an interface that does not exist"
  HOST2_ENV="NCCL_SOCKET_IFNAME==nosuch0" mpi 3 "--bind-to none" java -cp "$JCOLL_CP" io.jcoll.internal.Doctor --run
  echo "exit $?"
  step "doctor --json across 2 hosts"
  mpi 2 "--bind-to none" java -cp "$JCOLL_CP" io.jcoll.internal.Doctor --run --json > "$OUT/doctor-2-hosts.json"
  echo "exit $?"; grep -c '"path": "nccl"' "$OUT/doctor-2-hosts.json"
  unset AS_HOST_JCOLL
  step "mpirun default binding, C allreduce"
  mpi 2 "" /tmp/bw_bench allreduce 2 $(c_sizes)
  step "mpirun default binding, jcoll keeping it (JCOLL_CPU_AFFINITY=keep), 64 MB only"
  JCOLL_CPU_AFFINITY=keep JCOLL_TIMEOUT=30s mpi 2 "" ./jcoll perf allreduce -b 64M -e 64M -w 3 -i "$ITERS" | rows
  for round in $(seq "$ROUNDS"); do
    step "round $round: mpirun --bind-to none -np 2 ./jcoll perf allreduce (README)"
    mpi 2 "--bind-to none" ./jcoll perf allreduce "${SIZES[@]}" | rows
    step "round $round: mpirun --bind-to none, C allreduce"
    mpi 2 "--bind-to none" /tmp/bw_bench allreduce 2 $(c_sizes)
    step "round $round: mpirun -np 2 ./jcoll perf allreduce (default binding: widened)"
    mpi 2 "" ./jcoll perf allreduce "${SIZES[@]}" | rows
  done
} 2>&1 | tee "$OUT/one-gpu-hosts.log"
