#!/usr/bin/env bash
# The TCP transport's payload padding, jcoll perf's settling warm-up and the launcher that no longer polls (the
# bundle's build, "new") against the previous build's jars (.gpu-old, "old") and Open MPI over TCP, alternated in
# rounds: on two CPUs with 2 ranks (the development machine's figure, every process under taskset) and on every
# core with 8 ranks (that the padding costs nothing where the kernel's copies did not suffer). Writes
# $OUT/two-cpus/ab.log, $OUT/all-cores/ab.log and $OUT/lscpu.txt.
#   GPU host:  source .gpu/env.sh && bash benchmarks/gpu/padding.sh     (carry .gpu, .gpu-old, .gpu-tests)
set -uo pipefail
all=$OUT
lscpu > "$all/lscpu.txt"
mkdir -p "$all/two-cpus" "$all/all-cores"
OUT=$all/two-cpus OLD_JARS=.gpu-old RANKS=2 OPS="allreduce alltoall" LO=128K HI=2M FACTOR=4 WARM=20 ITERS=200 \
  ROUNDS=3 LIMIT=200 taskset -c 0,1 bash benchmarks/gpu/ab.sh
OUT=$all/all-cores OLD_JARS=.gpu-old RANKS=8 OPS="allreduce alltoall" LO=1M HI=16M FACTOR=4 WARM=5 ITERS=50 \
  ROUNDS=2 LIMIT=120 bash benchmarks/gpu/ab.sh
