#!/usr/bin/env bash
# Two ranks that copy alone reading each other below 128 KB (all-gathers and all-to-alls from 8 KB, broadcasts from
# 16 KB, no pick below 128 KB, no root share below 64 KB in place and 128 KB out of place) against the build before,
# where the slots took every call below 128 KB, on two CPUs of the GPU host: every process under `taskset -c 0,1`,
# so that jcoll sees two cores as on the 2-vCPU development VM and Open MPI's two ranks share them. The build before
# is this bundle with the previous head's jcoll-shm jar first on the class path (BASE_JAR, default
# .gpu/base/jcoll-shm.jar). benchmarks/compare/paired.sh --transport shm -o "allgather alltoall broadcast", out of
# place and in place, 8-256 KB, block by block beside Open MPI in the same processes; the builds alternated in
# ROUNDS rounds.
#   [ROUNDS=2] [BASE_JAR=...] bash benchmarks/gpu/small-read.sh
# Writes $OUT/BUILD-MODE-ROUND/paired.log, $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
{
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for build in base new; do
      for mode in out-of-place in-place; do
        step "round $r, $build, $mode"
        JCOLL_CP=$(build_cp $build) timeout 240 taskset -c 0,1 bash benchmarks/compare/paired.sh --transport shm \
          -o "allgather alltoall broadcast" --out "$OUT/$build-$mode-$r" \
          -- -b 8K -e 256K -f 2 -w 1000 -k 20 -B 20 --jit-warmup 20000 \
          $([[ $mode == in-place ]] && echo --in-place) > /dev/null 2>&1
        grep -E '^# PairedMpi|^ +[0-9]' "$OUT/$build-$mode-$r/paired.log"
      done
    done
  done
} 2>&1 | tee "$OUT/run.log"
