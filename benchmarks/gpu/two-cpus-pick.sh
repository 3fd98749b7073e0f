#!/usr/bin/env bash
# Rank 0's pick between reading and the slots, the default where two ranks copy alone (JCOLL_SHM_SINGLE_COPY=auto),
# against the sizes alone (sized), on two CPUs of the GPU host: every process under `taskset -c 0,1`, so that jcoll
# sees two cores as on the 2-vCPU development VM (no crews) and Open MPI's two ranks share them. Issue 19's VM
# figure's run (benchmarks/compare/paired.sh --transport shm, every collective, 128 KB-32 MB, block by block beside
# Open MPI's shared-memory path in the same processes), the two settings alternated in ROUNDS rounds. OPS narrows
# the collectives; IN_PLACE=1 makes every call in place (Open MPI's too).
#   [ROUNDS=3] [OPS="allreduce ..."] [IN_PLACE=1] bash benchmarks/gpu/two-cpus-pick.sh
# Writes $OUT/SETTING-ROUND/ (paired.log, OP-blocks.csv), $OUT/SETTING-ROUND.log, $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
{
  for r in $(seq 1 "${ROUNDS:-3}"); do
    for setting in auto sized; do
      step "round $r, $setting"
      JCOLL_SHM_SINGLE_COPY=$setting timeout 240 taskset -c 0,1 bash benchmarks/compare/paired.sh --transport shm \
        -o "${OPS:-allreduce reducescatter allgather alltoall broadcast}" --out "$OUT/$setting-$r" -- \
        -b 128K -e 32M -f 4 -w 1000 -k 20 -B 20 --jit-warmup 20000 ${IN_PLACE:+--in-place} > "$OUT/$setting-$r.log" 2>&1
      grep -v '^#  ' "$OUT/$setting-$r.log" | grep -E '^#|^ +[0-9]'
    done
  done
} 2>&1 | tee "$OUT/run.log"
