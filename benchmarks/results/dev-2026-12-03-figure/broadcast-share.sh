#!/usr/bin/env bash
# cma_floor.c's out-of-place broadcasts at 8 and 32 MB beside Open MPI's MPI_Bcast, alternated in 4 rounds on the
# development VM (2 ranks, the host probed before each run): the ranks splitting the message ("split"), the root
# copying alone ("s0"), and the root writing a quarter or a third first ("s25", "s33": jcoll's balancer's design).
#   bash broadcast-share.sh > broadcast-share.txt
set -uo pipefail
cd "$(dirname "$0")/../../compare" && mpicc -O2 -o /tmp/cma_floor cma_floor.c || exit 1
for r in 1 2 3 4; do
  for v in split s0 s25 s33; do
    case $v in
      split) op=broadcast-split share=0 ;; s0) op=broadcast-out share=0 ;;
      s25) op=broadcast-share share=0.25 ;; s33) op=broadcast-share share=0.33 ;;
    esac
    echo "== $v round $r $(date +%T) $(/tmp/host_probe 1)"
    FLOOR_SHARE=$share mpirun --allow-run-as-root --bind-to none -x FLOOR_SHARE -np 2 /tmp/cma_floor $op 8388608 \
      33554432 4 20 10 21 2>&1 | grep -v "^#\|bytes"
  done
done
