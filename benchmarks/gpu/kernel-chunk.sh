#!/usr/bin/env bash
# The reduction kernel's chunk on the GPU host's cores: the probe (benchmarks/results/dev-2026-12-01-kernel-chunk/
# CK.java: float32 and float64 sums of 2, 4 and 8 inputs at 64 KB-64 MB, in chunks of 3.5, 8 and 16 KB; NO_PROBE=1
# leaves it out), then the build with 3.5 KB chunks ("new") against the one before (OLD_JARS, "old") beside Open
# MPI's shared-memory path (RANKS, OPS, LO, HI, ROUNDS as benchmarks/gpu/ab.sh takes them).
#   javac --release 17 -d CLASSES CK.java && mkdir -p .gpu/probe && jar cf .gpu/probe/ck.jar -C CLASSES CK.class
#   OLD_JARS=.gpu-old bash benchmarks/gpu/kernel-chunk.sh      (carry .gpu and .gpu-old)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
if [[ -z ${NO_PROBE:-} ]]; then
  for k in 2 4 8; do
    step "probe, $k inputs"
    timeout 100 java -Dinputs=$k -Dchunks=3584,8192,16384 -cp .gpu/probe/ck.jar CK 64 1024 4096 16384 65536
  done 2>&1 | tee "$OUT/probe.log"
fi
OLD_JARS=${OLD_JARS:-.gpu-old} TRANSPORT=shm RANKS=${RANKS:-"8 2"} OPS=${OPS:-"allreduce reducescatter"} \
  LO=${LO:-1M} HI=${HI:-64M} FACTOR=4 ROUNDS=${ROUNDS:-2} LIMIT=${LIMIT:-110} bash benchmarks/gpu/ab.sh
