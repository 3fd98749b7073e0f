#!/usr/bin/env bash
# Two checks on two CPUs of the GPU host (every process under `taskset -c 0,1`, as on the 2-vCPU development VM),
# block by block beside Open MPI's shared-memory path (benchmarks/compare/paired.sh --transport shm), ROUNDS rounds
# with the builds alternated:
#   1. The benchmark: PairedMpi settling the JIT with bursts sized from a size's first ten calls ("old-bench", its
#      jar at OLD_BENCH_JAR, default .gpu/old/benchmarks.jar, first on the class path) against bursts of 100 ms of
#      calls ("new-bench"), both on the previous head's jcoll-shm (BASE_JAR): all-gathers and broadcasts at 8-64 KB,
#      out of place, where 16 KB is the first size that reads its peer.
#   2. jcoll: an in-place all-to-all at 8-64 KB, which single copy's first phase sends to the slots, with the
#      second phase ("new") and without ("base", BASE_JAR, default .gpu/base/jcoll-shm.jar).
#   [ROUNDS=4] bash benchmarks/gpu/settle-bursts.sh
# Writes $OUT/PART-BUILD-ROUND/paired.log, $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
old_bench=$(realpath "${OLD_BENCH_JAR:-.gpu/old/benchmarks.jar}")
paired() { # CP OPS DIR [--in-place]
  JCOLL_CP=$1 timeout 240 taskset -c 0,1 bash benchmarks/compare/paired.sh --transport shm -o "$2" --out "$OUT/$3" \
    -- -b 8K -e 64K -f 2 -w 1000 -k 20 -B 20 --jit-warmup 20000 "${@:4}" > /dev/null 2>&1
  grep -E '^# PairedMpi|^ +[0-9]' "$OUT/$3/paired.log"
}
{
  for r in $(seq 1 "${ROUNDS:-4}"); do
    step "round $r, old-bench"; paired "$old_bench:$(build_cp base)" "allgather broadcast" "bench-old-$r"
    step "round $r, new-bench"; paired "$(build_cp base)" "allgather broadcast" "bench-new-$r"
    step "round $r, base, in place"; paired "$(build_cp base)" alltoall "a2a-base-$r" --in-place
    step "round $r, new, in place"; paired "$(build_cp new)" alltoall "a2a-new-$r" --in-place
  done
} 2>&1 | tee "$OUT/run.log"
