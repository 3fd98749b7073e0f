#!/usr/bin/env bash
# The probe proof run on the GPU host: what the machine offers, what jcoll sets
# for NCCL, and what NCCL really used, with P2P/NVLink and with NCCL's socket path.
#   here:       bash ../shared/gpu/bundle.sh && bash benchmarks/gpu/bundle-tests.sh
#   GPU host:   bash benchmarks/gpu/probe.sh   (with .gpu and .gpu-tests carried; results under $OUT)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
{
  step "the files the probe reads"
  head -1 /proc/driver/nvidia/version
  for f in /proc/driver/nvidia/gpus/*/information; do echo "$f"; grep -E "Model|Bus Location|Device Minor" "$f"; done
  ls /sys/class/infiniband 2>&1; ls -d /sys/module/nvidia_peermem /sys/module/nv_peer_mem 2>&1
  for i in /sys/class/net/*; do echo "$i $(cat "$i/operstate") mtu $(cat "$i/mtu") speed $(cat "$i/speed" 2>/dev/null || echo -)"; done
  step "doctor"; timeout 60 ./jcoll doctor
  step "doctor --run 2: NCCL with ranks as threads, then what NCCL really used"
  timeout 120 ./jcoll doctor --run 2; echo "exit $?"
  step "doctor --json --run 2 with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (NCCL's socket path)"
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 timeout 120 ./jcoll doctor --json --run 2 | tee "$OUT/doctor-socket.json"
  step "doctor with a transport that cannot run"; JCOLL_TRANSPORT=mpi timeout 60 ./jcoll doctor >/dev/null; echo "exit $?"
  step "perf allreduce, one process per GPU: the network line at the end"
  timeout 180 ./jcoll perf allreduce -n "$N" -b 8 -e 512M -f 4 -w 20 -i 50
  step "perf allreduce on NCCL's socket path"
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 timeout 180 ./jcoll perf allreduce -n "$N" -b 8 -e 512M -f 8 -w 5 -i 10
  step "raw NCCL logs (the user routes NCCL_DEBUG; jcoll reads their file)"
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH NCCL_DEBUG_FILE="$OUT/nccl-p2p.%p.log" \
    timeout 120 ./jcoll perf allreduce -n "$N" -b 1M -e 1M -w 2 -i 2 | grep network
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH \
    NCCL_DEBUG_FILE="$OUT/nccl-socket.%p.log" timeout 120 ./jcoll perf allreduce -n "$N" -b 1M -e 1M -w 2 -i 2 | grep network
  step "JUnit: the GPU suite"
  timeout 300 bash benchmarks/gpu/junit.sh 2>&1 | tail -25
} 2>&1 | tee "$OUT/probe.log"
