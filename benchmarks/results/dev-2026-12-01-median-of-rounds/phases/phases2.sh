#!/bin/bash
T25=/usr/lib/jvm/temurin-25-jdk-amd64
out=$1; rounds=$2
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
for r in $(seq 1 $rounds); do
 for c in 131072 524288 1048576; do
  echo "== $c $r $(date +%T) $(${PROBE:-/tmp/host_probe} 0.5)"
  JAVA_TOOL_OPTIONS="-Djcoll.phaseTimes=true -Djcoll.reduceChunk=$c" JCOLL_SHM_SINGLE_COPY=sized PATH=$T25/bin:$PATH timeout 300 bash benchmarks/compare/paired.sh --transport shm -o "allreduce" --out $out/p-$c-$r -- -b 8M -e 8M -f 4 -w 200 -k 20 -B 20 --jit-warmup 1000 > $out/p-$c-$r.out 2>&1
  grep -A4 "PairedMpi allreduce" $out/p-$c-$r/paired.log | grep 8388608; grep PHASES $out/p-$c-$r.out
 done
done
