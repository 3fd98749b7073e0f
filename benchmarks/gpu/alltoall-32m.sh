#!/usr/bin/env bash
# Issue 17's 32 MB point alone: nccl-tests' all-to-all loop (bw_bench alltoall-p2p) and jcoll's allToAllV with
# equal counts, 32 MB only, 50 and then 400 timed calls, ROUNDS rounds (alltoall-loops.sh measures it as the first
# size of a 32-512 MB sweep).        [ROUNDS=3] bash benchmarks/gpu/alltoall-32m.sh   (writes $OUT/a2a-iters.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
nccl_c_bench bw_bench
for r in $(seq "${ROUNDS:-3}"); do
  for it in 50 400; do
    echo "=== round $r iters $it"
    timeout 60 /tmp/bw_bench alltoall-p2p "$N" 32M 32M 2 10 "$it" | tail -1
    timeout 90 ./jcoll perf alltoallv -n "$N" -b 32M -e 32M -w 10 -i "$it" | grep -E "^ +[0-9]"
  done
done 2>&1 | tee "$OUT/a2a-iters.log"
