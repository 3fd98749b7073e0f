#!/usr/bin/env bash
# How far a short timed loop is from the steady state, and whether fixed socket buffers close the gap: 8-rank
# AllReduce at 8-32 MB timed with 3 + 20 calls and with 20 + 200, under the kernel's buffer autotuning and with
# JCOLL_TCP_SOCKET_BUFFER=4M, alternated over two rounds, jcoll only.
#   bash benchmarks/gpu/steady-state.sh      (writes $OUT/steady-state.log)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/steps.sh"
{
  for round in 1 2; do
    for buffers in autotuned 4M; do
      for loop in "3 20" "20 200"; do
        read -r w i <<<"$loop"
        step "allreduce, 8 ranks, socket buffers $buffers, warm-up $w, timed $i, round $round"
        setting=(); [[ $buffers != autotuned ]] && setting=(JCOLL_TCP_SOCKET_BUFFER="$buffers")
        env "${setting[@]}" timeout 90 ./jcoll perf allreduce -n 8 -b 8M -e 32M -f 2 -w "$w" -i "$i" --transport tcp 2>&1 \
          | perf_rows
      done
    done
  done
} 2>&1 | tee "$OUT/steady-state.log"
