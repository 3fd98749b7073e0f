#!/usr/bin/env bash
# Device buffers through the TCP transport, stages in page-locked memory (the default where a GPU runtime is
# on the class path) against pageable direct memory (JCOLL_TCP_PINNED=0), alternated twice in one run.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export JCOLL_TRANSPORT=tcp
{
  for round in 1 2; do
    for pinned in 1 0; do
      for op in allreduce alltoall; do
        step "round $round: $op, device buffers over TCP, JCOLL_TCP_PINNED=$pinned"
        JCOLL_TCP_PINNED=$pinned timeout 120 ./jcoll perf $op -n "$N" -b 2M -e 64M -f 8 -w 3 -i 10 --memory device \
          | grep -E "^ +[0-9]|Out of bounds|network"
      done
    done
  done
} 2>&1 | tee "$OUT/tcp-device.log"
