#!/usr/bin/env bash
# The JVM's widest vector and the shared-memory transport's copies on the GPU host's cores: where HotSpot's
# vectors are 64 bytes (AVX-512), its arraycopy stub copies 4 KB and more with 64-byte loops, and with
# -XX:MaxVectorSize=32 with `rep movs` (benchmarks/results/dev-2026-12-01-vector-size/). First the two-process
# hand-off probe (HandOff.java, compiled into .gpu/probe/handoff), then the defaults ("new") against
# MaxVectorSize=32 ("mvs32") beside Open MPI's shared-memory path (benchmarks/gpu/ab.sh; RANKS, OPS, LO, HI,
# FACTOR, ROUNDS and LIMIT as it takes them).
#   javac --release 17 -d .gpu/probe/handoff benchmarks/results/dev-2026-12-01-vector-size/HandOff.java
#   bash benchmarks/gpu/vector-size.sh      (carry .gpu)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
step "hand-off probe"
CLASSES=.gpu/probe/handoff ROUNDS=${PROBE_ROUNDS:-4} timeout 120 \
  bash benchmarks/results/dev-2026-12-01-vector-size/hand-off.sh 2>&1 | tee "$OUT/hand-off.log"
TRANSPORT=shm VARIANTS="mvs32:JCOLL_JAVA_OPTS=-XX:MaxVectorSize=32" RANKS=${RANKS:-"2 8"} \
  OPS=${OPS:-"allgather allreduce broadcast"} LO=${LO:-1M} HI=${HI:-64M} FACTOR=${FACTOR:-8} ROUNDS=${ROUNDS:-3} \
  LIMIT=${LIMIT:-75} bash benchmarks/gpu/ab.sh
