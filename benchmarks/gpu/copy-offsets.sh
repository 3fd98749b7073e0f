#!/usr/bin/env bash
# Where the kernel's copies of a loopback TCP stream run slow on this host: tcp_bound's exchange (two processes, one
# connection, no library) with every buffer at page offsets 0-256 and 2048, on two CPUs, two passes.
# tcp_bound is built on the development machine and carried (cc -O2 -pthread -o .gpu-tests/tcp_bound
# benchmarks/compare/tcp_bound.c). Writes $OUT/offsets.txt.
set -uo pipefail
for pass in 1 2; do
  for offset in $(seq 0 8 128) 160 192 256 2048; do
    for bytes in 262144 1048576; do
      echo "pass $pass offset $offset $(TCP_BOUND_OFFSET=$offset taskset -c 0,1 .gpu-tests/tcp_bound exchange $bytes 30 300)"
    done
  done
done | tee "$OUT/offsets.txt"
