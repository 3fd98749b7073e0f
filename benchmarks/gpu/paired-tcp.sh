#!/usr/bin/env bash
# TCP AllReduce at 2 ranks on two CPUs of the GPU host (every process under `taskset -c 0,1`, as on the 2-vCPU
# development VM), block by block beside Open MPI over TCP on loopback in the same processes
# (benchmarks/compare/paired.sh), ROUNDS runs (default 2) of 8 B-2 MB.
#   [ROUNDS=2] [CPUS=0,1] bash benchmarks/gpu/paired-tcp.sh
# Writes $OUT/tcp-N/ (paired.log and allreduce-blocks.csv each) and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
for r in $(seq 1 "${ROUNDS:-2}"); do
  step "run $r"
  taskset -c "${CPUS:-0,1}" timeout 250 bash benchmarks/compare/paired.sh --transport tcp --out "$OUT/tcp-$r" -- \
    -b 8 -e 2M -f 4 -w 2000 -k 200 -B 20 --jit-warmup 200000 | grep -v '^#  '
done
