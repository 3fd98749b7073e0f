#!/usr/bin/env bash
# What the flight recorder and JFR events cost an 8-byte AllReduce: the same perf run with recording off
# (JCOLL_TRACE_BUFFER=0), with the default ring, and with the ring and a JFR recording of every call
# (tools/jcoll.jfc, threshold 0), alternated in ROUNDS rounds; over TCP on loopback with 2 ranks (ab.sh) and on
# NCCL with one rank per GPU. Each round prints every variant's time; the summary gives medians and ratios.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ROUNDS=${ROUNDS:-8}
JFR="-XX:StartFlightRecording:settings=$PWD/tools/jcoll.jfc"

# nccl_medians FILE: each variant's median over the rounds, out of place and in place, from the rounds' lines
# ("nccl round R VARIANT OUT IN"); the lower of the two middle rounds for an even count
nccl_medians() {
  for column in 5 6; do
    awk -v c=$column '{t[$4] = t[$4] " " $c} END {for (v in t) print v, t[v]}' "$1" | sort | while read -r v times; do
      echo "nccl $v median $([[ $column == 5 ]] && echo out-of-place || echo in-place)" \
        "$(printf '%s\n' $times | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}') us"
    done
  done
}
{
  step "TCP, 2 ranks, 8 bytes, $ROUNDS alternated rounds"
  timeout 400 benchmarks/compare/ab.sh -o allreduce -n 2 -b 8 -e 8 -w 2000 -i 20000 -r "$ROUNDS" --no-mpi \
    off:JCOLL_TRACE_BUFFER=0 recorder:JCOLL_TRACE_BUFFER=2000 "recorder+jfr:JCOLL_JAVA_OPTS=$JFR"
  step "NCCL, $N rank(s), 8 bytes, $ROUNDS alternated rounds (time in us: out of place, in place)"
  for round in $(seq "$ROUNDS"); do
    for variant in off recorder recorder+jfr; do
      case $variant in
        off) env=(JCOLL_TRACE_BUFFER=0) ;;
        recorder) env=(JCOLL_TRACE_BUFFER=2000) ;;
        recorder+jfr) env=(JCOLL_TRACE_BUFFER=2000 "JCOLL_JAVA_OPTS=$JFR") ;;
      esac
      printf 'nccl round %d %-13s ' "$round" "$variant"
      env "${env[@]}" timeout 120 ./jcoll perf allreduce -n "$N" -b 8 -e 8 -w 2000 -i 20000 --transport nccl \
        2>&1 | grep -E "^ +[0-9]" | awk '{print $6, $10}'
    done
  done | tee "$OUT/nccl-rounds.txt"
  nccl_medians "$OUT/nccl-rounds.txt"
} 2>&1 | tee "$OUT/trace-cost.log"
