#!/usr/bin/env bash
# Issue 18's first figure on namespace "hosts" (root): 4 hosts x 1 rank on 1 Gbit/s links (tbf), AllReduce and
# AllGather bus bandwidth at 16-64 MB against the link rate, jcoll and PyTorch's Gloo (where torch imports, as
# Debian's python3-torch does) alternated in each round; hierarchy.sh with that shape. Its variables apply:
#   [RATE=1gbit] [DELAY=2ms] [CC=cubic] [ROUNDS=2] [SYSTEMS="jcoll gloo"] [OUT=/tmp/jcoll-bandwidth] bash benchmarks/netns/bandwidth.sh
cd "$(dirname "$0")" || exit 2
SHAPES="0 1 2 3" OPS="allreduce allgather" SYSTEMS=${SYSTEMS:-jcoll gloo} OUT=${OUT:-/tmp/jcoll-bandwidth} \
  exec bash hierarchy.sh
