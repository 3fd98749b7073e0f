#!/usr/bin/env bash
# The in-place Broadcast at 2 ranks on two CPUs of the GPU host (every process under `taskset -c 0,1`, so each rank
# copies alone, as on the 2-vCPU development VM), block by block beside Open MPI's shared-memory path in the same
# processes (benchmarks/compare/paired.sh): this build, whose in-place roots two ranks copying alone read up to
# 2 MB, and the same with JCOLL_SHM_SINGLE_COPY=off (the slots), alternated in ROUNDS runs (default 3).
#   [ROUNDS=3] [CPUS=0,1] bash benchmarks/gpu/paired-in-place.sh
# Writes $OUT/{new,slots}-N/ (paired.log and broadcast-blocks.csv each) and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
for r in $(seq 1 "${ROUNDS:-3}"); do
  for variant in new slots; do
    step "round $r, $variant"
    settings=()
    [[ $variant == slots ]] && settings=(JCOLL_SHM_SINGLE_COPY=off)
    env "${settings[@]}" taskset -c "${CPUS:-0,1}" timeout 200 bash benchmarks/compare/paired.sh --transport shm \
      -o broadcast --out "$OUT/$variant-$r" -- -b 128K -e 32M -f 4 -w 1000 -k 20 -B 20 --jit-warmup 20000 --in-place \
      | grep -v '^#  '
  done
done
