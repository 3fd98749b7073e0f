#!/bin/bash
# The benchmark without settling (OLD: a worktree of 811b317) and with it (NEW), alternated round by round.
# usage: OPS="allreduce ..." ab-settle.sh OUT ROUNDS PAIRED_OPTIONS...
T25=/usr/lib/jvm/temurin-25-jdk-amd64
out=$1; rounds=${2:-3}; shift 2
for r in $(seq 1 $rounds); do
  for v in old new; do
    dir=${OLD:-/tmp/old}; [ $v = new ] && dir=${NEW:-/work/main}
    echo "== $v round $r $(date +%T)"
    (cd $dir && PATH=$T25/bin:$PATH timeout 900 bash benchmarks/compare/paired.sh --transport shm -o "$OPS" --out $out/$v-$r -- "$@" 2>&1 | grep -v "^#" | awk '{print $1, $4, $5}' | tr '\n' ';'); echo
  done
done
