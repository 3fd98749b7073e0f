#!/usr/bin/env bash
# Where a gather's or all-to-all's own block is copied, and with what, on two CPUs of the GPU host: every process
# under `taskset -c 0,1`, so that jcoll's two ranks copy alone as on the 2-vCPU development VM. A trial build whose
# SingleCopy reads JCOLL_X_OWN (2: the own block copied after the peer's block, before the rank says it is done
# reading, as on main; 1: after it says so; 0: before the reads) and JCOLL_X_MEMCPY (set: the own block copied by
# the C library's memcpy rather than HotSpot's copy stub). benchmarks/compare/paired.sh --transport shm
# -o "allgather alltoall", out of place, 128 KB-32 MB, block by block beside Open MPI in the same processes; the
# variants alternated in ROUNDS rounds.
# The trial build: benchmarks/results/dev-2026-12-02-own-block-order/trial.patch applied to 6cfaa56, then bundled.
#   [ROUNDS=3] bash benchmarks/gpu/own-block-order.sh
# Writes $OUT/VARIANT-ROUND/ (paired.log), $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
{
  for r in $(seq 1 "${ROUNDS:-3}"); do
    for variant in before-done after-done memcpy; do
      step "round $r, $variant"
      own=2; [[ $variant != before-done ]] && own=1
      memcpy=(); [[ $variant == memcpy ]] && memcpy=(JCOLL_X_MEMCPY=1)
      env JCOLL_X_OWN=$own "${memcpy[@]}" timeout 240 taskset -c 0,1 bash benchmarks/compare/paired.sh \
        --transport shm -o "allgather alltoall" --out "$OUT/$variant-$r" \
        -- -b 128K -e 32M -f 4 -w 1000 -k 20 -B 20 --jit-warmup 20000 > /dev/null 2>&1
      grep -E '^# PairedMpi|^ +[0-9]' "$OUT/$variant-$r/paired.log"
    done
  done
} 2>&1 | tee "$OUT/run.log"
