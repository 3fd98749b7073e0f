#!/usr/bin/env bash
# A broadcast's root writing a share of each receiver's output (process_vm_writev) against the build before, on
# two CPUs of the GPU host: every process under `taskset -c 0,1`, so that jcoll sees
# two cores as on the 2-vCPU development VM (no crews, rank 0 picking) and Open MPI's two ranks share them. The
# build before is this bundle with the previous head's jcoll-shm jar first on the class path (BASE_JAR, default
# .gpu/base/jcoll-shm.jar). benchmarks/compare/paired.sh --transport shm -o broadcast, in place (MPI_Bcast's like)
# and out of place, 128 KB-32 MB, block by block beside Open MPI in the same processes; the builds alternated in
# ROUNDS rounds.
#   [ROUNDS=3] [BASE_JAR=...] bash benchmarks/gpu/root-share.sh
# Writes $OUT/BUILD-MODE-ROUND/ (paired.log, broadcast-blocks.csv), $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
{
  for r in $(seq 1 "${ROUNDS:-3}"); do
    for build in base new; do
      for mode in in-place out-of-place; do
        step "round $r, $build, $mode"
        JCOLL_CP=$(build_cp $build) timeout 240 taskset -c 0,1 bash benchmarks/compare/paired.sh --transport shm \
          -o broadcast --out "$OUT/$build-$mode-$r" -- -b 128K -e 32M -f 4 -w 1000 -k 20 -B 20 --jit-warmup 20000 \
          $([[ $mode == in-place ]] && echo --in-place) > /dev/null 2>&1
        grep -E '^ +[0-9]' "$OUT/$build-$mode-$r/paired.log"
      done
    done
  done
} 2>&1 | tee "$OUT/run.log"
