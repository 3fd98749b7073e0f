#!/bin/bash
# The default (auto) and the sizes alone (sized) alternated, the whole of issue 19's VM figure.
# usage: full.sh OUT FIRST_ROUND LAST_ROUND (OUT absolute; the build is this checkout's)
T25=/usr/lib/jvm/temurin-25-jdk-amd64
out=$1; first=${2:-1}; last=${3:-3}
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
for r in $(seq $first $last); do
  for m in auto sized; do
    echo "== $m round $r $(date +%T)"
    PATH=$T25/bin:$PATH JCOLL_SHM_SINGLE_COPY=$m timeout 900 bash benchmarks/compare/paired.sh --transport shm -o "allreduce reducescatter allgather alltoall broadcast" --out $out/$m-$r -- -b 128K -e 32M -f 4 -w 1000 -k 20 -B 20 --jit-warmup 20000 > /dev/null 2>&1
  done
done
