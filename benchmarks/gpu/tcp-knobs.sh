#!/usr/bin/env bash
# The TCP transport's knobs at 8 ranks on the GPU host's 32 cores, where every rank's channels together fill the
# cores: the same AllReduce and All-to-All sweep (2-32 MB, loopback) under each setting, jcoll only, one line per
# size. Peers are not rerun here: compare against the same session's cpu-compare.sh table.
#   bash benchmarks/gpu/tcp-knobs.sh   (writes $OUT/tcp-knobs.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
RANKS=${RANKS:-8}
variants=("default:" "spin 200us:JCOLL_TCP_SPIN=200us" "segment 128K:JCOLL_TCP_SEGMENT=128K"
          "2 channels:JCOLL_TCP_CHANNELS=2" "8 channels:JCOLL_TCP_CHANNELS=8")
{
  for op in ${OPS:-allreduce alltoall}; do
    for v in "${variants[@]}"; do
      label=${v%%:*}; setting=${v#*:}
      step "$op, $RANKS ranks, $label"
      env $setting timeout 120 ./jcoll perf "$op" -n "$RANKS" -b 2M -e 32M -f 4 -w 3 -i 10 --transport tcp 2>&1 \
        | grep -E '^ +[0-9]' | awk '{printf "%10s bytes  %9s us  %6s GB/s busbw\n", $1, $6, $8}'
    done
  done
} 2>&1 | tee "$OUT/tcp-knobs.log"
