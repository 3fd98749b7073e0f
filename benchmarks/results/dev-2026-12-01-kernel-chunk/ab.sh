#!/bin/bash
# The reduction kernel's chunk, 8 KB a float chunk as it was (OLD: a checkout of e1afd58) against 3.5 KB (NEW: a
# checkout with the change), alternated, both under paired.sh against Open MPI's shared-memory path.
# usage: ab.sh OLD NEW OUT ROUNDS (checkouts built with mvn package; OUT absolute)
T25=/usr/lib/jvm/temurin-25-jdk-amd64
old=$1; new=$2; out=$3; rounds=${4:-3}
for r in $(seq 1 $rounds); do
  for side in old new; do
    dir=$old; [ $side = new ] && dir=$new
    echo "== $side round $r $(date +%T)"
    (cd "$dir" && PATH=$T25/bin:$PATH timeout 900 bash benchmarks/compare/paired.sh --transport shm \
      -o "allreduce reducescatter" --out $out/$side-$r -- -b 128K -e 32M -f 4 -w 1000 -k 20 -B 20 \
      --jit-warmup 20000 > /dev/null 2>&1)
  done
done
