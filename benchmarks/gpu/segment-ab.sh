#!/usr/bin/env bash
# Shorter segments for short runs (JCOLL_TCP_MIN_SEGMENT, default an eighth of the 512 KB segment) against whole
# segments only (JCOLL_TCP_MIN_SEGMENT=512K, the earlier behaviour), on the GPU host's CPUs: AllReduce and
# All-to-All, 4-64 MB, in alternated rounds, and the peers (Open MPI over TCP, Gloo) once in the same command.
# Each variant's table holds the ratios to those peers. Writes $OUT/segment-ab.log and $OUT/segment-ab.tgz.
#   bash benchmarks/gpu/segment-ab.sh
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export MPI_BENCH=$PWD/.gpu-tests/mpi_bench
dir=/tmp/segment-ab; rm -rf "$dir"; mkdir -p "$dir"
sizes=(-b 4M -e 64M -f 4 -w 5 -i 30)
{
  for n in ${RANKS:-2 8}; do
    timeout 240 bash benchmarks/compare/compare.sh -n "$n" -o "allreduce alltoall" "${sizes[@]}" --only "openmpi gloo" \
      --out "$dir/peers-$n" > /dev/null 2>&1
    for round in 1 2; do
      for variant in short-segments:64K whole-segments:512K; do
        label=${variant%%:*}
        for op in allreduce alltoall; do
          JCOLL_TCP_MIN_SEGMENT=${variant#*:} timeout 120 ./jcoll perf "$op" -n "$n" "${sizes[@]}" --transport tcp \
            --csv "$dir/jcoll-$label-r$round-$op-$n.csv" > /dev/null 2>&1
        done
        step "$n ranks, round $round, $label"
        java -cp "$JCOLL_CP" io.jcoll.bench.Comparison "$dir"/jcoll-$label-r$round-*-$n.csv "$dir"/peers-$n/*-*.csv
      done
    done
  done
} 2>&1 | tee "$OUT/segment-ab.log"
tar czf "$OUT/segment-ab.tgz" -C /tmp segment-ab
