#!/usr/bin/env bash
# Two-rank gathers to a root read by the root (the build before, its jars in .gpu-old put first on the class path)
# and written by the sender from 512 KB (the bundle's build) on two CPUs of the GPU host, every process under
# `taskset -c 0,1` so that jcoll's two ranks copy alone: `jcoll perf gather` at 512 KB-32 MB, in place and out, the
# two builds alternated in ROUNDS rounds; and what the bundle's network says of gathers: all-gathers write from a
# third of the host's last-level cache (lscpu.txt).
# The old build as for gather-writes.sh; carry .gpu and .gpu-old.
#   [ROUNDS=3] bash benchmarks/gpu/gather-writes-root.sh
# Writes $OUT/VARIANT-ROUND.txt, $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
{
  for r in $(seq 1 "${ROUNDS:-3}"); do
    for variant in base new; do
      step "round $r, $variant"
      cp=$JCOLL_CP; [[ $variant == base ]] && cp="$PWD/.gpu-old/*:$JCOLL_CP"
      JCOLL_CP=$cp timeout 200 taskset -c 0,1 ./jcoll perf gather -n 2 --transport shm -b 512K -e 32M -f 4 \
        > "$OUT/$variant-$r.txt" 2>&1
      grep -E '^ +[0-9]' "$OUT/$variant-$r.txt"
    done
  done
  step "what the network says of gathers (jcoll perf's header)"
  grep -o "gathers to a root[^;]*" "$OUT/new-1.txt" | head -1
} 2>&1 | tee "$OUT/run.log"
