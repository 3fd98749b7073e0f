#!/usr/bin/env bash
# Two-rank gathers that read their peers (the build before, its jars in .gpu-old put first on the class path) and
# that write them (the bundle's build), on two CPUs of the GPU host: every process under `taskset -c 0,1`, so that
# jcoll's two ranks copy alone as on the 2-vCPU development VM; the two builds alternated in ROUNDS rounds. PARTS:
#   all-gather  benchmarks/compare/paired.sh --transport shm -o allgather at 4-64 MB, out of place, with the sizes
#               alone deciding (JCOLL_SHM_SINGLE_COPY=sized: every call read or written), block by block beside Open
#               MPI's shared-memory path in the same processes: whether writing pays where the host's last-level
#               cache (lscpu.txt) is larger than the VM's 32 MB
#   gather      `jcoll perf gather` to a root at 512 KB-32 MB, in place and out (no Open MPI peer); then what the
#               bundle's network says of gathers (jcoll perf's header)
# The old build: mkdir .gpu-old && cp OLD_TREE/jcoll-*/target/jcoll-*-SNAPSHOT.jar
#   OLD_TREE/benchmarks/target/benchmarks-*-SNAPSHOT.jar .gpu-old/   (carry .gpu and .gpu-old)
#   [ROUNDS=3] [PARTS="all-gather gather"] bash benchmarks/gpu/gather-writes.sh
# Writes $OUT/all-gather/VARIANT-ROUND/paired.log, $OUT/gather/VARIANT-ROUND.txt, $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
mkdir -p "$OUT/all-gather" "$OUT/gather"
{
  for part in ${PARTS:-all-gather gather}; do
    for r in $(seq 1 "${ROUNDS:-3}"); do
      for variant in base new; do
        step "$part, round $r, $variant"
        cp=$JCOLL_CP; [[ $variant == base ]] && cp="$PWD/.gpu-old/*:$JCOLL_CP"
        if [[ $part == all-gather ]]; then
          JCOLL_CP=$cp JCOLL_SHM_SINGLE_COPY=sized timeout 300 taskset -c 0,1 bash benchmarks/compare/paired.sh \
            --transport shm -o allgather --out "$OUT/all-gather/$variant-$r" \
            -- -b 4M -e 64M -f 2 -w 200 -k 10 -B 16 --jit-warmup 20000 > /dev/null 2>&1
          grep -E '^# PairedMpi|^ +[0-9]' "$OUT/all-gather/$variant-$r/paired.log"
        else
          JCOLL_CP=$cp timeout 200 taskset -c 0,1 ./jcoll perf gather -n 2 --transport shm -b 512K -e 32M -f 4 \
            > "$OUT/gather/$variant-$r.txt" 2>&1
          grep -E '^ +[0-9]' "$OUT/gather/$variant-$r.txt"
        fi
      done
    done
  done
  if [[ -f $OUT/gather/new-1.txt ]]; then
    step "what the network says of gathers (jcoll perf's header)"
    grep -o "gathers to a root[^;]*" "$OUT/gather/new-1.txt" | head -1
  fi
} 2>&1 | tee "$OUT/run.log"
