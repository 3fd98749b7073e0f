#!/usr/bin/env bash
# Where the host's CPUs go in an 8-rank TCP AllReduce, and what loopback TCP allows a ring at all: the
# question behind issue 6's 8-rank targets on the GPU host's CPUs.
#   1. ring floor: tcp_bound's ring (RANKS processes, CHANNELS connections to the next rank, a thread each,
#      no arithmetic) for 2, 4 and 8 ranks over 1, 2 and 4 channels: the bus bandwidth no ring can pass here.
#   2. CPU split: jcoll, Open MPI over TCP and Gloo, each alone, one long AllReduce run of SIZE at RANKS ranks,
#      with the host's user/system/idle time sampled from /proc/stat every second and a per-thread top(1)
#      snapshot in the middle of each run.
#   3. a JFR recording of every jcoll rank in the same run (settings=profile), for `jfr print` here.
# Needs .gpu (shared/gpu/bundle.sh) and .gpu-tests holding mpi_bench and tcp_bound, built here:
#   mpicc -O2 -o .gpu-tests/mpi_bench benchmarks/compare/mpi_bench.c
#   cc -O2 -pthread -o .gpu-tests/tcp_bound benchmarks/compare/tcp_bound.c
#   [RANKS=8 SIZE=32M ITERS=800 STEPS="floor cpu jfr"] bash benchmarks/gpu/cpu-use.sh
# Writes $OUT/cpu-use.log, the samples and snapshots it prints, and $OUT/jfr.tgz (a recording per process).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/steps.sh"
source benchmarks/compare/openmpi.sh
source benchmarks/compare/torch_python.sh
ranks=${RANKS:-8}; size=$(numfmt --from=iec "${SIZE:-32M}"); iters=${ITERS:-800}   # ~15 s of calls at 8 ranks
bound=$PWD/.gpu-tests/tcp_bound

# prints "cpu <user> <nice> <system> <idle> <iowait> <irq> <softirq> ..." once a second, stamped, until killed
sample_cpu() { while true; do echo "$(date +%s.%N | cut -c1-14) $(head -1 /proc/stat)"; sleep 1; done; }

# after $1 seconds: the busiest threads over one second (top's second frame)
snapshot() {
  sleep "$1"
  top -H -b -n 2 -d 1 -w 200 2>/dev/null | awk '/^top -/ { frame++ } frame == 2' | head -40 > "$OUT/top-$2.txt"
}

# runs "$@" with the CPU sampler beside it and the snapshot after $2 seconds
with_cpu() {
  local label=$1 snapshot_after=$2; shift 2
  step "cpu: $label"
  sample_cpu > "$OUT/cpu-$label.stat" & local sampler=$!
  snapshot "$snapshot_after" "$label" &
  timeout 300 "$@" 2>&1 | tail -5
  kill $sampler 2>/dev/null; wait
  python3 benchmarks/compare/cpu_split.py --each "$OUT/cpu-$label.stat"
  cat "$OUT/top-$label.txt"
}

{
  echo "# $(date -u +%FT%TZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  steps=${STEPS:-floor cpu jfr}
  [[ $steps == *floor* ]] && {
  step "ring floor: tcp_bound ring RANKS CHANNELS 4M (per rank per round), polling; and yielding where threads outnumber cores"
  for n in 2 4 8; do
    for c in 1 2 4; do
      timeout 60 "$bound" ring $n $c 4194304 5 40
      (( n * c > $(nproc) )) && TCP_BOUND_YIELD=1 timeout 60 "$bound" ring $n $c 4194304 5 40 | sed 's/$/ (yielding)/'
    done
  done
  step "ring floor, 1M per round (a 8-rank 8 MB AllReduce's step)"
  for c in 1 2; do timeout 60 "$bound" ring 8 $c 1048576 5 100; done
  }
  [[ $steps == *cpu* ]] && {
  with_cpu jcoll 5 ./jcoll perf allreduce -n "$ranks" -b "$size" -e "$size" -w 10 -i "$iters" --transport tcp
  with_cpu openmpi 5 "${mpirun[@]}" -np "$ranks" .gpu-tests/mpi_bench allreduce "$size" "$size" 2 10 "$((iters / 2))"
  with_cpu gloo 12 "$torch_python" benchmarks/compare/gloo_bench.py "$ranks" allreduce "$size" "$size" 2 10 "$iters"
  }
  [[ $steps == *jfr* ]] && {
  step "jcoll with JFR (settings=profile), same run"
  mkdir -p "$OUT/jfr"
  JCOLL_JAVA_OPTS="-XX:StartFlightRecording=settings=profile,filename=$OUT/jfr/" timeout 300 \
    ./jcoll perf allreduce -n "$ranks" -b "$size" -e "$size" -w 10 -i "$iters" --transport tcp 2>&1 | tail -3
  tar czf "$OUT/jfr.tgz" -C "$OUT" jfr && rm -rf "$OUT/jfr"   # one file: the device returns only a few
  }
} 2>&1 | tee "$OUT/cpu-use.log"
