#!/usr/bin/env bash
# jcoll perf gather (2 ranks, shm, 512 KB-32 MB) on the previous head ("base", a worktree at BASE) and this checkout
# ("new"), alternated in ROUNDS rounds on the development VM: benchmarks/results/dev-2026-12-03-gather-writes.
#   BASE=/tmp/base [ROUNDS=2] bash gather.sh OUT_DIR
set -uo pipefail
out=$(realpath -m "$1")
cd "$(dirname "$0")/../../.."
mkdir -p "$out"
for r in $(seq 1 "${ROUNDS:-2}"); do
  for v in base new; do
    tree=.; [[ $v == base ]] && tree=$BASE
    echo "== round $r $v $(date +%T) $(/tmp/host_probe 1)"
    (cd "$tree" && timeout 300 ./jcoll perf gather -n 2 --transport shm -b 512K -e 32M -f 4) > "$out/$v-$r.txt" 2>&1
  done
done
