#!/usr/bin/env bash
# SIGKILL and SIGSTOP sent from outside to rank 1 of a 2-rank NCCL job (device buffers, 64 MB AllReduces in a
# loop, JCOLL_TIMEOUT=5s): the survivor must raise the exception naming the rank (through the watchdog and
# ncclCommAbort), the launcher must exit non-zero, and no process may be left behind.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export JCOLL_TIMEOUT=5s JCOLL_LAUNCH_GRACE=10 # grace: room for the survivor to report
{
  for sig in KILL STOP; do
    step "SIG$sig to rank 1"
    log=$(mktemp)
    ./jcoll launch -n 2 -- io.jcoll.bench.FailureDrill external > "$log" 2>&1 &
    launcher=$!
    for _ in $(seq 600); do [[ $(grep -c "IN pid=" "$log") == 2 ]] && break; sleep 0.1; done
    victim=$(grep "^\[1\].*IN pid=" "$log" | sed 's/.*IN pid=//')
    sleep 0.3
    sent=$(date +%s%3N); kill -$sig "$victim"
    wait $launcher; code=$?
    [[ $sig == STOP ]] && kill -KILL "$victim" 2>/dev/null
    grep -vE "WARNING|INFO: jcoll set|NcclEnvironment doPrepare|^\[.\] $" "$log"
    caught=$(grep -o "at=[0-9]*" "$log" | head -1 | cut -d= -f2)
    echo "launcher exit $code; named ${caught:+$((caught - sent)) ms after the signal}"
    sleep 1; echo "java processes left: $(pgrep -c -f FailureDrill || true)"
  done
} 2>&1 | tee "$OUT/signals.log"
