#!/usr/bin/env bash
# The TCP transport's compiled code thrown away mid-run (issue 18): C2's uncommon traps in a sweep of an earlier
# build (OLD_JARS, put first on the class path) and of the bundle's, then the two builds and Open MPI over TCP timed
# in alternated rounds (benchmarks/gpu/ab.sh): 8 B-32 KB after 500 untimed calls with 5,000 timed, 128 KB-2 MB after
# 20 with 200 (as cpu-compare.sh's -W/-I and -w/-i). Every process under `taskset -c $CPUS` (default 0,1: the
# development machine's two cores, on a quiet host). PART=traps or PART=timing runs one half (default both).
#   OLD_JARS=.gpu-old [CPUS=0,1] [OPS="allreduce alltoall"] [ROUNDS=5] [LIMIT=280] bash benchmarks/gpu/jit-traps.sh
# Writes $OUT/traps-{old,new}/ (one -Xlog:deoptimization file per process), $OUT/traps.txt (traps of jcoll's code by
# method, bytecode and reason, per build) and $OUT/ab-small.log, $OUT/ab-large.log.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
cpus=${CPUS:-0,1}
sweep=(-n 2 -b 8 -e 2M -f 4 -w 20 -i 200 --transport tcp)
for build in old new; do
  [[ ${PART:-traps} == timing ]] && break
  step "traps, $build build"
  mkdir -p "$OUT/traps-$build"
  cp=$JCOLL_CP; [[ $build == old ]] && cp="$PWD/$OLD_JARS/*:$JCOLL_CP"
  for op in ${OPS:-allreduce alltoall}; do
    JCOLL_CP=$cp JCOLL_JAVA_OPTS="-Xlog:deoptimization=debug:file=$OUT/traps-$build/$op-%p.log" \
      taskset -c "$cpus" timeout 120 ./jcoll perf "$op" "${sweep[@]}" 2>&1 | perf_rows
  done
  # "[time] ... level=4 METHOD(SIGNATURE) trap_bci=N REASON ACTION ...": count each method, bytecode and reason
  { echo "# $build build: uncommon traps in io.jcoll code over the sweeps above (every process)"
    cat "$OUT/traps-$build"/*.log | grep 'io\.jcoll' \
      | sed -E 's/.* (io\.jcoll[^(]*)\(.*trap_bci=([0-9]+) ([a-z_0-9]+) .*/\1 bci=\2 \3/' | sort | uniq -c | sort -rn
  } >> "$OUT/traps.txt"
done
[[ -f $OUT/traps.txt ]] && cat "$OUT/traps.txt"
[[ ${PART:-} == traps ]] && exit 0
timed() { # LO HI WARM ITERS NAME
  OUT=$OUT RANKS=2 OPS="${OPS:-allreduce alltoall}" LO=$1 HI=$2 FACTOR=4 WARM=$3 ITERS=$4 ROUNDS=${ROUNDS:-5} \
    LIMIT=${LIMIT:-280} taskset -c "$cpus" bash "$(dirname "$0")/ab.sh"
  mv "$OUT/ab.log" "$OUT/ab-$5.log"
}
timed 8 32K 500 5000 small
timed 128K 2M 20 200 large
