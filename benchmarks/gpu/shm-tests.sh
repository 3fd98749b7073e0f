#!/usr/bin/env bash
# The shared-memory transport's JUnit suite on the GPU host's CPUs, where ranks run on cores of their own (the
# development VM has two): the whole suite, then the soak and the fault tests (rank processes killed and stopped
# in every path) at as many ranks as the host has cores for.
#   here:      bash ../shared/gpu/bundle.sh && MODULES="jcoll-api jcoll-shm" bash benchmarks/gpu/bundle-tests.sh
#   GPU host:  bash benchmarks/gpu/shm-tests.sh   (carry .gpu and .gpu-tests; LAYOUTS, CALLS, FAULT_RANKS, SUITE=0 to skip it)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
# On the class path itself, not the launcher's --class-path: the fault tests start ranks with java.class.path
jars=( $JCOLL_CP )
cp="$(IFS=:; echo "${jars[*]}"):.gpu-tests/classes:$(ls .gpu-tests/junit-platform-console-standalone-*.jar)"
junit() { # $1: seconds it may run; then JVM options up to "--", then the launcher's selection
  local limit=$1 opts=(); shift
  while [[ $1 != -- ]]; do opts+=("$1"); shift; done; shift
  time timeout "$limit" java "${opts[@]}" -cp "$cp" org.junit.platform.console.ConsoleLauncher execute \
    --disable-banner --disable-ansi-colors --details=tree "$@" 2>&1
}
step "host"; nproc; java -version 2>&1 | head -1
if [ "${SUITE:-1}" = 1 ]; then
  step "the jcoll-shm suite"
  junit 420 -- --select-package io.jcoll.shm | tail -60
fi
step "the soak at ${LAYOUTS:=8x1,4x3,5x2,16x1} (ranks x crew), ${CALLS:=20000} calls each"
junit "${SOAK_LIMIT:-400}" -Djcoll.shm.soak.layouts="$LAYOUTS" -Djcoll.shm.soak.calls="$CALLS" -- \
  --select-class io.jcoll.shm.ShmSoakTest | tail -40
for n in ${FAULT_RANKS:-8 16}; do
  step "the fault tests at $n rank processes"
  junit "${FAULT_LIMIT:-200}" -Djcoll.shm.fault.ranks="$n" -- --select-class io.jcoll.shm.ShmFaultTest \
    | tee "$OUT/fault-$n.log" | grep --line-buffered -E "named rank|tests (successful|failed)|✘|Exception:" | cut -c1-400
done
