#!/usr/bin/env bash
# Where the small Broadcast's time goes on the GPU host's CPUs, in three parts:
#   FLOOR=1   a one-rank 8-byte call (the call path alone: validation, record, flight recorder, the box; no peer),
#             the bundle's build as it is ("base") and in each of VARIANTS, in ROUNDS rounds;
#   PROFILE=1 JFR's execution samples of both ranks of a two-rank 8-byte loop (jcoll's own event off);
#   always    the bundle's build at 8 and 64 B against Open MPI's shared-memory path, with a trial build (OLD_JARS,
#             "old" in the table) and settings or builds in VARIANTS (default: the recorder off), alternated
#             (benchmarks/gpu/ab.sh; RANKS and ROUNDS as its).
#   GPU host: [OLD_JARS=.gpu-trial] [FLOOR=1] [PROFILE=0] bash benchmarks/gpu/broadcast-costs.sh   (carry .gpu,
#             .gpu-trial and .gpu-tests with mpi_bench built there: mpicc -O2 -o .gpu-tests/mpi_bench
#             benchmarks/compare/mpi_bench.c; writes $OUT/call-floor.log, $OUT/profile.txt, $OUT/jfr/, $OUT/ab.log)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ROUNDS=${ROUNDS:-3}
VARIANTS="${VARIANTS-off:JCOLL_TRACE_BUFFER=0}"
if [ "${FLOOR:-0}" = 1 ]; then
  read -ra floor_variants <<< "base $VARIANTS"
  {
    step "one rank, 8 B (time out of place, in place, us), --jit-warmup 2000000 -w 100000 -i 3000000"
    for round in $(seq "$ROUNDS"); do
      k=$(( (round - 1) % ${#floor_variants[@]} ))  # each round starts one later: none always runs first (ab.sh)
      for v in "${floor_variants[@]:k}" "${floor_variants[@]:0:k}"; do
        settings=(); [[ $v == *:* ]] && IFS=, read -ra settings <<< "${v#*:}"
        env "${settings[@]}" JCOLL_TRANSPORT=shm timeout 120 ./jcoll perf broadcast -n 1 -b 8 -e 8 \
          --jit-warmup 2000000 -w 100000 -i 3000000 --csv "$OUT/floor.csv" > /dev/null 2>&1
        echo "round $round ${v%%:*}: $(tail -1 "$OUT/floor.csv" | cut -d, -f8,12)"; rm -f "$OUT/floor.csv"
      done
    done
  } 2>&1 | tee "$OUT/call-floor.log"
fi
if [ "${PROFILE:-1}" = 1 ]; then
  mkdir -p "$OUT/jfr"
  jfc=$OUT/jfr/settings.jfc
  sed 's|</configuration>|<event name="io.jcoll.Collective"><setting name="enabled">false</setting></event></configuration>|' \
    "$JAVA_HOME/lib/jfr/profile.jfc" > "$jfc" # jcoll's own event off: one a call would fill the recording
  step "JFR: 2 ranks, 8 B Broadcast, 5,000,000 timed calls"
  JCOLL_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints -XX:StartFlightRecording=settings=$jfc,filename=$OUT/jfr/rank-%p.jfr" \
    JCOLL_TRANSPORT=shm timeout 120 ./jcoll perf broadcast -n 2 -b 8 -e 8 --jit-warmup 2000000 -w 100000 -i 5000000 \
    2>&1 | grep -E "^ +8 " | tee "$OUT/profile-run.txt"
  for f in "$OUT"/jfr/rank-*.jfr; do
    echo "# $(basename "$f")"; python3 benchmarks/compare/jfr_top.py --top 14 "$f"
  done > "$OUT/profile.txt" 2>&1
fi
VARIANTS="$VARIANTS" TRANSPORT=shm RANKS="${RANKS:-2 4}" OPS=broadcast LO=8 HI=64 FACTOR=8 \
  WARM=20000 ITERS=100000 JIT_WARMUP=2000000 ROUNDS="$ROUNDS" LIMIT=200 bash benchmarks/gpu/ab.sh > /dev/null
