#!/usr/bin/env bash
# Where a small shared-memory call's time goes on the GPU host's CPUs, by what leaving parts out saves: the clock
# (io.jcoll.bench.ClockCost: one System.nanoTime read), then the one-rank 8-byte Broadcast's time (the call path
# with no peer) in VARIANTS alternated for ROUNDS rounds, then benchmarks/gpu/broadcast-costs.sh's two-, four- and
# eight-rank 8- and 64-byte Broadcast against Open MPI with the same VARIANTS.
# A VARIANT is NAME:VAR=VALUE,VAR=VALUE (settings of the bundle's build, or JCOLL_CP with another build's jars first);
# benchmarks/results/gpu-2026-11-29-small-call-path/ has a trial patch whose parts -Dx.trial= switches off.
#   GPU host: VARIANTS="off:JCOLL_TRACE_BUFFER=0" [ROUNDS=3] [RANKS="2 8"] bash benchmarks/gpu/call-floor-trials.sh
#   (carry .gpu and .gpu-tests with mpi_bench; writes $OUT/clock.txt, $OUT/call-floor.log, $OUT/ab.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ROUNDS=${ROUNDS:-3}
{ cat /sys/devices/system/clocksource/clocksource0/current_clocksource; nproc
  java -cp "$JCOLL_CP" io.jcoll.bench.ClockCost; } > "$OUT/clock.txt" 2>&1
read -ra variants <<< "base ${VARIANTS:-}"
{
  step "one rank, 8 B Broadcast (time out of place, in place, us), --jit-warmup 2000000 -w 100000 -i 3000000"
  for round in $(seq "$ROUNDS"); do
    for v in "${variants[@]}"; do
      settings=(); [[ $v == *:* ]] && IFS=, read -ra settings <<< "${v#*:}"
      env "${settings[@]}" JCOLL_TRANSPORT=shm timeout 120 ./jcoll perf broadcast -n 1 -b 8 -e 8 \
        --jit-warmup 2000000 -w 100000 -i 3000000 --csv "$OUT/floor.csv" > /dev/null 2>&1
      echo "round $round ${v%%:*}: $(tail -1 "$OUT/floor.csv" | cut -d, -f8,12)"; rm -f "$OUT/floor.csv"
    done
  done
} 2>&1 | tee "$OUT/call-floor.log"
PROFILE=0 VARIANTS="${VARIANTS:-}" ROUNDS="$ROUNDS" RANKS="${RANKS:-2 8}" bash benchmarks/gpu/broadcast-costs.sh
