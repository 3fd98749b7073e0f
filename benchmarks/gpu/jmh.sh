#!/usr/bin/env bash
# A short JMH bandwidth run over NCCL on the GPU host: ranks as JMH threads, one GPU each, device buffers.
#   bash benchmarks/gpu/jmh.sh [OPS] [BYTES]     (defaults: allreduce,allgather; 8,1048576,33554432,268435456)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ops=${1:-allreduce,allgather}; sizes=${2:-8,1048576,33554432,268435456}
{
  step "JMH: CollectiveBenchmark over nccl, $N threads, ops $ops, sizes $sizes"
  timeout 500 java -cp "$JCOLL_CP" org.openjdk.jmh.Main CollectiveBenchmark -p transport=nccl -p op="$ops" \
    -p bytes="$sizes" -t "$N" -wi 2 -i 3 -f 1 -rf csv -rff "$OUT/jmh-nccl.csv" 2>&1 \
    | grep -vE "^# (JMH|VM|Warmup|Measurement|Timeout|Threads|Benchmark mode)|^$|NOTE|REMEMBER|why the numbers|experiments|the benchmarking|Do not assume|extra caution|works, and|modes can be|different JVMs"
} 2>&1 | tee "$OUT/jmh.log"
