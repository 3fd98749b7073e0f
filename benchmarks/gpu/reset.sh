#!/usr/bin/env bash
# A connection reset under NCCL: with P2P and SHM off, NCCL moves data over TCP sockets (NET/Socket); 50 ms into
# 64 MB device-buffer AllReduces, rank 1 shuts down every connected socket of its own process (FailureDrill cut:
# jcoll's and NCCL's), as a reset would; then again with its listening sockets too (cut-all). The survivor must raise an exception naming the rank within JCOLL_TIMEOUT plus a
# second, through NCCL's error or the watchdog, the launcher must exit non-zero, and nothing may be left behind.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export JCOLL_TIMEOUT=5s JCOLL_LAUNCH_GRACE=10 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
# a native abort (glibc's heap checks) prints the aborting thread's stack: build with
#   gcc -O1 -shared -fPIC -o .gpu-tests/abort_backtrace.so benchmarks/gpu/abort_backtrace.c
[[ -f .gpu-tests/abort_backtrace.so ]] && export LD_PRELOAD=$PWD/.gpu-tests/abort_backtrace.so
{
  for mode in cut cut-all; do
    step "connection reset ($mode): rank 1's sockets shut down mid-AllReduce (NCCL over sockets)"
    timeout 90 ./jcoll launch -n 2 -- io.jcoll.bench.FailureDrill $mode 2>&1 | grep -vE "WARNING|INFO: jcoll set|doPrepare|^\[.\] $"
    echo "launcher exit ${PIPESTATUS[0]}"
    sleep 1; echo "java processes left: $(pgrep -c -f FailureDrill || true)"
  done
} 2>&1 | tee "$OUT/reset.log"
