#!/bin/bash
# ar8.sh OUT ROUNDS: the 8 MB AllReduce read a slice each, read whole, through the slots and by default
# (auto) alternated, the host probed before each run (PROBE: a built benchmarks/compare/host_probe.c); needs the
# trial properties of trial.patch
T25=/usr/lib/jvm/temurin-25-jdk-amd64
out=$1; rounds=$2
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
for r in $(seq 1 $rounds); do
  for v in slice whole slots auto; do
    case $v in slice) o="-Djcoll.force=read";; whole) o="-Djcoll.force=read -Djcoll.whole8=true";; slots) o="-Djcoll.force=slots";; auto) o="";; esac
    echo "== $v $r $(date +%T) $(${PROBE:-/tmp/host_probe} 0.5)"
    JAVA_TOOL_OPTIONS="$o" PATH=$T25/bin:$PATH timeout 300 bash benchmarks/compare/paired.sh --transport shm -o "allreduce" --out $out/$v-$r -- -b 8M -e 8M -f 4 -w 200 -k 20 -B 20 --jit-warmup 1000 > $out/$v-$r.out 2>&1
    grep -A4 "PairedMpi allreduce" $out/$v-$r/paired.log | grep 8388608
  done
done
