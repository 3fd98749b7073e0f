#!/usr/bin/env bash
# What the reduction costs an 8-rank TCP AllReduce on the GPU host's CPUs (JFR put most of the ranks' Java time in
# the reduction kernel, benchmarks/RESULTS.md):
#   1. the kernel alone (JMH ReductionBenchmark.jcollKernel, float32 SUM) on 1, 8 and 16 threads at once, over a
#      512 KB segment (cache) and a 32 MB buffer (memory): how fast one core reduces while the others do too;
#   2. when NOREDUCE_JARS names a directory holding a jcoll-tcp jar built to skip the reduction under
#      -Dnoreduce=true (an experiment, never part of the build: results are wrong, so the data check is off), the
#      AllReduce with and without the reduction, alternated in ROUNDS rounds: the most a faster kernel could gain.
#      That jar, here: git apply benchmarks/gpu/noreduce.patch && mvn -q -o -pl jcoll-tcp package -DskipTests &&
#      mkdir -p .gpu-noreduce && cp jcoll-tcp/target/jcoll-tcp-*-SNAPSHOT.jar .gpu-noreduce/ &&
#      git apply -R benchmarks/gpu/noreduce.patch       (and carry .gpu-noreduce)
#   [NOREDUCE_JARS=.gpu-noreduce ROUNDS=3 RANKS=8] bash benchmarks/gpu/reduce-cost.sh       (writes $OUT/reduce-cost.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ranks=${RANKS:-8}
{
  echo "# $(date -u +%FT%TZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(java -version 2>&1 | head -1)"
  for count in ${COUNTS:-131072 8388608}; do
    for threads in ${THREADS:-1 8 16}; do
      step "kernel: $count floats, $threads threads"
      timeout 120 java -cp "$JCOLL_CP" org.openjdk.jmh.Main 'ReductionBenchmark.jcollKernel' -p count=$count \
        -t $threads -f 1 -wi 2 -w 1 -i 3 -r 1 2>&1 | grep -E "^ReductionBenchmark"
    done
  done
  if [[ -n ${NOREDUCE_JARS:-} ]]; then
    for (( round = 1; round <= ${ROUNDS:-3}; round++ )); do
      for variant in with without; do
        step "allreduce, $ranks ranks, reduction: $variant (round $round)"
        if [[ $variant == with ]]; then cp=$JCOLL_CP opts=""; else cp="$PWD/$NOREDUCE_JARS/*:$JCOLL_CP" opts=-Dnoreduce=true; fi
        JCOLL_CP=$cp JCOLL_JAVA_OPTS=$opts timeout 120 ./jcoll perf allreduce -n "$ranks" -b 8M -e 32M -f 2 -w 5 \
          -i 50 -c 0 --transport tcp 2>&1 | perf_rows
      done
    done
  fi
} 2>&1 | tee "$OUT/reduce-cost.log"
