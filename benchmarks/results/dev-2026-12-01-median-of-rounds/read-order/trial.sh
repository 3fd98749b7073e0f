#!/bin/bash
# trial.sh OUT ROUNDS: AllGather and All-to-All read (sized), 2-32 MB, three builds alternated: the base, the own
# block copied first (-Djcoll.ownFirst=true), process_vm_readv in 1 MB pieces (-Djcoll.viewChunk=1048576); trial.patch
T25=/usr/lib/jvm/temurin-25-jdk-amd64
out=$1; rounds=$2
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
for r in $(seq 1 $rounds); do
  for v in base own chunk1m; do
    case $v in base) o="";; own) o="-Djcoll.ownFirst=true";; chunk1m) o="-Djcoll.viewChunk=1048576";; esac
    echo "== $v round $r $(date +%T) $(${PROBE:-/tmp/host_probe} 1)"
    JAVA_TOOL_OPTIONS="$o" JCOLL_SHM_SINGLE_COPY=sized PATH=$T25/bin:$PATH timeout 900 bash benchmarks/compare/paired.sh --transport shm -o "allgather alltoall" --out $out/$v-$r -- -b 2M -e 32M -f 4 -w 300 -k 20 -B 20 --jit-warmup 5000 > $out/$v-$r.out 2>&1
  done
done
echo "== end $(date +%T) $(${PROBE:-/tmp/host_probe} 1)"
