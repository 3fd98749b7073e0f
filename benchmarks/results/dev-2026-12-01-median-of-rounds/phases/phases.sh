#!/bin/bash
T25=/usr/lib/jvm/temurin-25-jdk-amd64
out=$1; rounds=$2
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
for r in $(seq 1 $rounds); do
  echo "== $r $(date +%T) $(${PROBE:-/tmp/host_probe} 0.5)"
  JAVA_TOOL_OPTIONS="-Djcoll.phaseTimes=true" JCOLL_SHM_SINGLE_COPY=sized PATH=$T25/bin:$PATH timeout 300 bash benchmarks/compare/paired.sh --transport shm -o "allreduce" --out $out/p-$r -- -b 8M -e 8M -f 4 -w 200 -k 20 -B 20 --jit-warmup 1000 > $out/p-$r.out 2>&1
  grep -A4 "PairedMpi allreduce" $out/p-$r/paired.log | grep 8388608; grep PHASES $out/p-$r.out
done
