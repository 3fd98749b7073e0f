#!/usr/bin/env bash
# NCCL's socket path with the interface jcoll derives (lo: MASTER_ADDR is 127.0.0.1) against NCCL's own
# choice (JCOLL_NCCL_AUTOCONFIG=0: NCCL skips lo and takes eth0), alternated twice in one run.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
{
  for round in 1 2; do
    for auto in 1 0; do
      step "round $round, JCOLL_NCCL_AUTOCONFIG=$auto"
      JCOLL_NCCL_AUTOCONFIG=$auto timeout 120 ./jcoll perf allreduce -n "$N" -b 32M -e 512M -f 4 -w 3 -i 10 \
        | grep -E "^ +[0-9]|network"
    done
  done
} 2>&1 | tee "$OUT/socket-interface.log"
