#!/usr/bin/env bash
# Where the two-rank 8-byte Broadcast's time goes on the GPU host's CPUs: JFR's execution samples of both ranks in
# a long loop (jcoll's own event off), then the bundle's build against a trial build (OLD_JARS, "old" in the
# table), itself with the flight recorder off, and Open MPI's shared-memory path, alternated (benchmarks/gpu/ab.sh).
#   GPU host: OLD_JARS=.gpu-trial bash benchmarks/gpu/broadcast-costs.sh   (carry .gpu, .gpu-trial and .gpu-tests
#             with mpi_bench built there; writes $OUT/profile.txt, $OUT/jfr/*.jfr and $OUT/ab.log; PROFILE=0
#             leaves the profile out, VARIANTS names settings or builds of the trial's, RANKS and ROUNDS as ab.sh's)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
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
VARIANTS="${VARIANTS:-off:JCOLL_TRACE_BUFFER=0}" TRANSPORT=shm RANKS="${RANKS:-2 4}" OPS=broadcast LO=8 HI=64 FACTOR=8 \
  WARM=20000 ITERS=100000 JIT_WARMUP=2000000 ROUNDS="${ROUNDS:-3}" LIMIT=200 bash benchmarks/gpu/ab.sh > /dev/null
