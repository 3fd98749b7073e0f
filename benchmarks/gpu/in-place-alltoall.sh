#!/usr/bin/env bash
# The in-place All-to-All block by block beside Open MPI's in-place All-to-All (MPI_IN_PLACE) in the same processes
# (benchmarks/compare/paired.sh --in-place), jcoll's shared-memory transport against Open MPI's default path on
# one host: single copy through scratch (SingleCopy's exchange) against the slots, alternated in ROUNDS runs.
#   PART=crews [RANKS="2 4 8"] [ROUNDS=2]: every core, so each rank's copies are shared by a crew; the slots (the
#     defaults there) against single copy from 512 KB (JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN=1), 1-64 MB.
#   PART=alone [ROUNDS=2] [CPUS=0,1]: 2 ranks on two CPUs (every process under taskset), so each copies alone, as
#     on the 2-vCPU development VM: the defaults (single copy from 2 MB), single copy from 128 KB, and the slots
#     (JCOLL_SHM_SINGLE_COPY=off), 128 KB-32 MB.
# Writes $OUT/PART-VARIANT-RANKS-ROUND/ (paired.log, alltoall-blocks.csv), $OUT/run.log and lscpu.txt.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
lscpu > "$OUT/lscpu.txt"
pin=()
paired() { # RANKS OUT_DIR PAIRED_OPTIONS... (every process under ${pin[@]})
  local n=$1 dir=$2; shift 2
  timeout 240 "${pin[@]}" bash benchmarks/compare/paired.sh -n "$n" --transport shm -o alltoall --out "$dir" -- "$@" --in-place \
    | grep -v '^#  '
}
{
  for r in $(seq 1 "${ROUNDS:-2}"); do
    if [[ ${PART:-crews} == crews ]]; then
      for n in ${RANKS:-2 4 8}; do
        for variant in slots read; do
          step "round $r, $n ranks, $variant"
          settings=(JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN=$([[ $variant == read ]] && echo 1 || echo 64G))
          (export "${settings[@]}"; paired "$n" "$OUT/crews-$variant-$n-$r" -b 1M -e 64M -f 4 -w 100 -k 10 -B 10 \
            --jit-warmup 2000)
        done
      done
    else
      for variant in defaults read slots; do
        step "round $r, 2 ranks on CPUs ${CPUS:-0,1}, $variant"
        settings=(JCOLL_SHM_SINGLE_COPY=auto)
        [[ $variant == read ]] && settings=(JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN=1)
        [[ $variant == slots ]] && settings=(JCOLL_SHM_SINGLE_COPY=off)
        pin=(taskset -c "${CPUS:-0,1}")
        (export "${settings[@]}"; paired 2 "$OUT/alone-$variant-2-$r" -b 128K -e 32M -f 4 -w 1000 -k 20 -B 20 \
          --jit-warmup 20000)
      done
    fi
  done
} 2>&1 | tee "$OUT/run.log"
