#!/usr/bin/env bash
# jcoll perf's settling of the sizes above 64 KB: the build before (its benchmarks jar at .gpu/base/benchmarks.jar,
# ahead of the bundle's on the class path) and this one, alternated in ROUNDS rounds (default 2). Each round runs,
# per build, NCCL's AllReduce on 2 GPUs at 1-256 MB (where there are two) and the shm transport's AllGather on 8 ranks at 128 KB-32 MB,
# and logs each run's wall time beside its table: what the settling costs, and whether the tables move.
#   source .gpu/env.sh && bash benchmarks/gpu/perf-settle.sh 2>&1 | tee $OUT/run.log
set -u
rounds=${ROUNDS:-2}
bundle_cp=$JCOLL_CP
run() { # build label, then jcoll perf's arguments
  local build=$1; shift
  if [[ $build == base ]]; then export JCOLL_CP="$(realpath .gpu/base/benchmarks.jar):$bundle_cp"; else export JCOLL_CP=$bundle_cp; fi
  local start=$(date +%s%N)
  ./jcoll perf "$@" > /tmp/perf-settle.out 2>&1
  local rc=$?
  printf '### %s: jcoll perf %s: rc %d, wall %d ms\n' "$build" "$*" "$rc" $(( ($(date +%s%N) - start) / 1000000 ))
  grep -E '^ +[0-9]' /tmp/perf-settle.out
  [[ $rc == 0 ]] || tail -20 /tmp/perf-settle.out
}
nproc; nvidia-smi -L
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
for r in $(seq 1 "$rounds"); do
  for build in base new; do
    echo "## round $r"
    if (( gpus >= 2 )); then run "$build" allreduce -n 2 -b 1M -e 256M -f 4 --transport nccl; fi
    run "$build" allgather -n 8 -b 128K -e 32M -f 4 --transport shm
  done
done
