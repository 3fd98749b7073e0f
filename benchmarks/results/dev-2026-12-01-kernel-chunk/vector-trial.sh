#!/bin/bash
# A trial, not kept in the code: the float32 sum of two inputs through the Vector API (jdk.incubator.vector, JDK 25)
# reading and writing the buffers' memory directly, against this checkout's kernel, alternated, AllReduce only.
# usage: vector-trial.sh CLASSES OUT ROUNDS (CLASSES: the trial ArrayKernels compiled with --add-modules
# jdk.incubator.vector; OUT absolute)
T25=/usr/lib/jvm/temurin-25-jdk-amd64
classes=$1; out=$2; rounds=${3:-3}
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
cp=$(./jcoll classpath)
for r in $(seq 1 $rounds); do
  for side in chunk vector; do
    echo "== $side round $r $(date +%T)"
    extra=(); [ $side = vector ] && extra=(env "JCOLL_CP=$classes:$cp" "JCOLL_JAVA_OPTS=--add-modules=jdk.incubator.vector")
    PATH=$T25/bin:$PATH "${extra[@]}" timeout 900 bash benchmarks/compare/paired.sh --transport shm -o allreduce \
      --out $out/$side-$r -- -b 2M -e 32M -f 4 -w 1000 -k 20 -B 20 --jit-warmup 20000 > /dev/null 2>&1
  done
done
