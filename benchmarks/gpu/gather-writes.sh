#!/usr/bin/env bash
# Two-rank all-gathers read (the build before, its jars in .gpu-old put first on the class path) and written from
# 16 MB (the bundle's build) on two CPUs of the GPU host, every process under `taskset -c 0,1` so that jcoll's two
# ranks copy alone as on the 2-vCPU development VM: benchmarks/compare/paired.sh --transport shm -o allgather at
# 4-64 MB, out of place, with the sizes alone deciding (JCOLL_SHM_SINGLE_COPY=sized: every call read or written),
# block by block beside Open MPI's shared-memory path in the same processes; the two builds alternated in ROUNDS
# rounds. Whether writing pays where the host's last-level cache is larger than the VM's 32 MB (lscpu.txt).
# The old build: mkdir .gpu-old && cp OLD_TREE/jcoll-*/target/jcoll-*-SNAPSHOT.jar
#   OLD_TREE/benchmarks/target/benchmarks-*-SNAPSHOT.jar .gpu-old/   (carry .gpu and .gpu-old)
#   [ROUNDS=3] bash benchmarks/gpu/gather-writes.sh
# Writes $OUT/VARIANT-ROUND/ (paired.log), $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
{
  for r in $(seq 1 "${ROUNDS:-3}"); do
    for variant in base new; do
      step "round $r, $variant"
      cp=$JCOLL_CP; [[ $variant == base ]] && cp="$PWD/.gpu-old/*:$JCOLL_CP"
      JCOLL_CP=$cp JCOLL_SHM_SINGLE_COPY=sized timeout 300 taskset -c 0,1 bash benchmarks/compare/paired.sh \
        --transport shm -o allgather --out "$OUT/$variant-$r" \
        -- -b 4M -e 64M -f 2 -w 200 -k 10 -B 16 --jit-warmup 20000 > /dev/null 2>&1
      grep -E '^# PairedMpi|^ +[0-9]' "$OUT/$variant-$r/paired.log"
    done
  done
} 2>&1 | tee "$OUT/run.log"
