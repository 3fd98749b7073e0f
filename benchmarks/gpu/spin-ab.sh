#!/usr/bin/env bash
# jcoll's wait-spin (JCOLL_TCP_SPIN) at its default against SPINS, alternated over three rounds, jcoll only, on the
# GPU host's 32 cores: 8-rank AllReduce and All-to-All at 2-64 MB, 2- and 8-rank AllReduce at 8 B-32 KB.
#   SPINS="200us" bash benchmarks/gpu/spin-ab.sh      (writes $OUT/spin.log)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/steps.sh"
# op, ranks, from, to, factor, warm-up, timed calls
sweeps=("allreduce 8 2M 64M 2 3 20" "alltoall 8 2M 64M 2 3 20" "allreduce 2 8 32K 16 200 2000" "allreduce 8 8 32K 16 200 2000")
{
  for round in 1 2 3; do
    for spin in default ${SPINS:-200us}; do
      for sweep in "${sweeps[@]}"; do
        read -r op n lo hi f w i <<<"$sweep"
        step "$op, $n ranks, $lo-$hi, spin $spin, round $round"
        setting=(); [[ $spin != default ]] && setting=(JCOLL_TCP_SPIN="$spin")
        env "${setting[@]}" timeout 60 ./jcoll perf "$op" -n "$n" -b "$lo" -e "$hi" -f "$f" -w "$w" -i "$i" \
          --transport tcp 2>&1 | perf_rows
      done
    done
  done
} 2>&1 | tee "$OUT/spin.log"
