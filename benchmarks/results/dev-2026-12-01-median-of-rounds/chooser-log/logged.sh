#!/bin/bash
# logged.sh OUT ROUNDS OPS: the default (auto) with PathChooser's log at DEBUG (log.properties), the host probed
# around each round (PROBE: a built benchmarks/compare/host_probe.c)
T25=/usr/lib/jvm/temurin-25-jdk-amd64
out=$1; rounds=$2; ops=$3
props=$(dirname "$(readlink -f "$0")")/log.properties
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
for r in $(seq 1 $rounds); do
  echo "== round $r $(date +%T) $(${PROBE:-/tmp/host_probe} 1)"
  JAVA_TOOL_OPTIONS=-Djava.util.logging.config.file=$props PATH=$T25/bin:$PATH timeout 900 bash benchmarks/compare/paired.sh --transport shm -o "$ops" --out $out/r$r -- -b 128K -e 32M -f 4 -w 1000 -k 20 -B 20 --jit-warmup 20000 > $out/r$r.out 2>&1
done
echo "== end $(date +%T) $(${PROBE:-/tmp/host_probe} 1)"
