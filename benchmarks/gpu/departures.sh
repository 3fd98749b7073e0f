#!/usr/bin/env bash
# A rank's process killed (SIGKILL) in the middle of 64 MB device-buffer AllReduces on NCCL (issue 22): the
# survivor must name it within 1 s through the rendezvous store (NCCL itself would wait for JCOLL_TIMEOUT,
# 30 s here), over NVLink and over NCCL's socket path, under `jcoll launch` and under mpirun. A stopped
# rank (SIGSTOP: alive, silent) must still be named within JCOLL_TIMEOUT (5 s) + 1 s.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export JCOLL_LAUNCH_GRACE=10
drill() {  # $1: label; $2: signal; then the command that starts the job
  local label=$1 sig=$2; shift 2
  step "$label: SIG$sig to rank 1 (JCOLL_TIMEOUT=$JCOLL_TIMEOUT)"
  local log; log=$(mktemp)
  "$@" > "$log" 2>&1 &
  local job=$!
  for _ in $(seq 900); do [[ $(grep -c "IN pid=" "$log") -ge 2 ]] && break; sleep 0.1; done
  local victim; victim=$(grep "rank 1 over.*IN pid=" "$log" | sed 's/.*IN pid=//' | head -1)
  sleep 0.5
  local sent; sent=$(date +%s%3N); kill -$sig "$victim"
  wait $job; local code=$?
  [[ $sig == STOP ]] && kill -KILL "$victim" 2>/dev/null
  grep -E "CAUGHT|noticed|rank 1 over" "$log" | cut -c1-400
  local caught; caught=$(grep -o "CAUGHT.* at=[0-9]*" "$log" | head -1 | sed 's/.*at=//')
  echo "RESULT $label SIG$sig: job exit $code; survivor named rank 1 ${caught:+$((caught - sent)) ms after the signal}"
  sleep 1; echo "java processes left: $(pgrep -c -f FailureDrill || true)"
}
launch() { timeout 120 ./jcoll launch -n "$N" -- io.jcoll.bench.FailureDrill external; }
under_mpirun() {
  timeout 120 mpirun --allow-run-as-root --bind-to none -np "$N" -x NCCL_NVLS_ENABLE -x JCOLL_TIMEOUT \
    -x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE java --enable-native-access=ALL-UNNAMED -cp "$JCOLL_CP" \
    io.jcoll.bench.FailureDrill external
}
{
  export JCOLL_TIMEOUT=30s
  drill "NVLink, jcoll launch" KILL launch
  drill "NVLink, mpirun" KILL under_mpirun
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 drill "socket path, jcoll launch" KILL launch
  export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
  drill "socket path, mpirun" KILL under_mpirun
  unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE
  export JCOLL_TIMEOUT=5s
  drill "NVLink, jcoll launch" STOP launch
} 2>&1 | tee "$OUT/departures.log"
