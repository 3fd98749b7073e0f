#!/bin/bash
T25=/usr/lib/jvm/temurin-25-jdk-amd64
out=$1; rounds=$2; mode=$3
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
for r in $(seq 1 $rounds); do
 for c in 131072 524288 1048576; do
  echo "== $c $r $(date +%T) $(${PROBE:-/tmp/host_probe} 0.5)"
  JAVA_TOOL_OPTIONS="-Djcoll.reduceChunk=$c" JCOLL_SHM_SINGLE_COPY=$mode PATH=$T25/bin:$PATH timeout 300 bash benchmarks/compare/paired.sh --transport shm -o "allreduce" --out $out/c-$c-$r -- -b 2M -e 32M -f 4 -w 200 -k 20 -B 20 --jit-warmup 1000 > $out/c-$c-$r.out 2>&1
  grep -A6 "PairedMpi allreduce" $out/c-$c-$r/paired.log | grep "8388608\|33554432"
 done
done
