#!/usr/bin/env bash
# Where a small shared-memory call's time goes on the GPU host's CPUs, by what leaving parts out saves: the clock
# (io.jcoll.bench.ClockCost: one System.nanoTime read), then benchmarks/gpu/broadcast-costs.sh with FLOOR=1: the
# one-rank 8-byte Broadcast (the call path with no peer) and the two-, four- and eight-rank 8- and 64-byte Broadcast
# against Open MPI, the bundle's build and each of VARIANTS alternated for ROUNDS rounds.
# A VARIANT is NAME:VAR=VALUE,VAR=VALUE (settings of the bundle's build, or JCOLL_CP with another build's jars first);
# benchmarks/results/gpu-2026-11-29-small-call-path/ has a trial patch whose parts -Dx.trial= switches off.
#   GPU host: VARIANTS="off:JCOLL_TRACE_BUFFER=0" [ROUNDS=3] [RANKS="2 8"] bash benchmarks/gpu/call-floor-trials.sh
#   (carry .gpu and .gpu-tests with mpi_bench; writes $OUT/clock.txt, $OUT/call-floor.log, $OUT/ab.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
{ cat /sys/devices/system/clocksource/clocksource0/current_clocksource; nproc
  java -cp "$JCOLL_CP" io.jcoll.bench.ClockCost; } > "$OUT/clock.txt" 2>&1
FLOOR=1 PROFILE=0 VARIANTS="${VARIANTS:-}" ROUNDS="${ROUNDS:-3}" RANKS="${RANKS:-2 8}" \
  bash benchmarks/gpu/broadcast-costs.sh
