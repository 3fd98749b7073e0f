#!/bin/bash
# The whole of issue 19's VM figure by default (JCOLL_SHM_SINGLE_COPY=auto), round after round, the host probed
# (benchmarks/compare/host_probe.c) before each round and after the last: every round counts, in whatever state
# the host met it.
# usage: rounds.sh OUT FIRST_ROUND LAST_ROUND (OUT absolute; the build is this checkout's)
T25=/usr/lib/jvm/temurin-25-jdk-amd64
out=$1; first=${2:-1}; last=${3:-10}
root="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
cd "$root"
probe=$out/host_probe
cc -O2 -o "$probe" benchmarks/compare/host_probe.c
for r in $(seq "$first" "$last"); do
  echo "== round $r $(date +%T) $("$probe" 1)"
  PATH=$T25/bin:$PATH timeout 900 bash benchmarks/compare/paired.sh --transport shm \
    -o "allreduce reducescatter allgather alltoall broadcast" --out "$out/auto-$r" \
    -- -b 128K -e 32M -f 4 -w 1000 -k 20 -B 20 --jit-warmup 20000 > /dev/null 2>&1
done
echo "== end $(date +%T) $("$probe" 1)"
