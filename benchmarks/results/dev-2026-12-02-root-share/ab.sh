#!/usr/bin/env bash
# Issue 19's VM figure beside Open MPI, two builds alternated: the previous head ("base", a worktree at BASE) and
# this checkout ("new"), ROUNDS rounds of benchmarks/compare/paired.sh --transport shm on the development VM
# (2 ranks, JDK from PATH), the host probed (benchmarks/compare/host_probe.c, built as /tmp/host_probe) before each
# run; results in OUT/VARIANT-ROUND/. OPS: the five collectives unless given; IN_PLACE=1: every call in place (the
# Broadcast then MPI_Bcast's like).
#   BASE=/tmp/base [OPS="broadcast"] [IN_PLACE=1] [LO=128K HI=32M FACTOR=4] [ROUNDS=3] bash ab.sh OUT
set -uo pipefail
out=$(realpath -m "$1")  # before the cd below
cd "$(dirname "$0")/../../.."
ops=${OPS:-allreduce reducescatter allgather alltoall broadcast}
in_place=(); [[ ${IN_PLACE:-0} == 1 ]] && in_place=(--in-place)
for r in $(seq 1 "${ROUNDS:-3}"); do
  for v in base new; do
    tree=.; [[ $v == base ]] && tree=$BASE
    echo "== round $r $v $(date +%T) $(/tmp/host_probe 1)"
    timeout 900 bash "$tree/benchmarks/compare/paired.sh" --transport shm -o "$ops" --out "$out/$v-$r" \
      -- -b "${LO:-128K}" -e "${HI:-32M}" -f "${FACTOR:-4}" -w 1000 -k 20 -B 20 --jit-warmup 20000 \
      "${in_place[@]}" > /dev/null 2>&1
  done
done
echo "== end $(date +%T) $(/tmp/host_probe 1)"
