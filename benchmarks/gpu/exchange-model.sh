#!/usr/bin/env bash
# The two-rank 8-byte Broadcast on the GPU host's CPUs, taken apart: the box exchange alone with no call path
# (io.jcoll.bench.ExchangeModel, in each of its layouts, fences and replies), jcoll's whole call at one rank (the
# call path with no peer) and at two, and Open MPI's shared-memory path at MPI_THREAD_SINGLE and at
# MPI_THREAD_MULTIPLE (the level whose guarantee a jcoll communicator gives), in ROUNDS rounds, each starting one
# system later in the list. Writes $OUT/exchange-model.log.
#   GPU host: [ROUNDS=3] bash benchmarks/gpu/exchange-model.sh   (carry .gpu)
set -uo pipefail
source "$(dirname "$0")/steps.sh"
ROUNDS=${ROUNDS:-3}
CALLS=${CALLS:-3000000}
mpicc -O2 -o /tmp/mpi_bench benchmarks/compare/mpi_bench.c || { echo "mpicc failed"; exit 1; }
mpirun=(mpirun --oversubscribe); [[ $(id -u) == 0 ]] && mpirun+=(--allow-run-as-root)

# one system's figure, in ns a call (the model: its slower thread's last round)
run_one() {
  case "$1" in
    model:*)
      read -ra choice <<< "${1#model:}"
      timeout 120 java -cp "$JCOLL_CP" io.jcoll.bench.ExchangeModel "${choice[@]}" "$CALLS" | tail -1 |
        awk '{print ($7 > $10 ? $7 : $10)}' ;;
    mpi-*)
      MPI_BENCH_THREADS=${1#mpi-} timeout 120 "${mpirun[@]}" -np 2 /tmp/mpi_bench broadcast 8 8 2 20000 1000000 |
        tail -1 | awk -F, '{print $8 * 1000}' ;;
    jcoll-*)
      JCOLL_TRANSPORT=shm timeout 120 ./jcoll perf broadcast -n "${1#jcoll-}" -b 8 -e 8 --jit-warmup 2000000 \
        -w 100000 -i "$CALLS" --csv "$OUT/one.csv" > /dev/null 2>&1
      tail -1 "$OUT/one.csv" | awk -F, '{print $8 * 1000}'; rm -f "$OUT/one.csv" ;;
  esac
}

systems=("model:strided fence reply" "model:strided nofence reply" "model:packed fence reply"
  "model:packed nofence reply" "model:strided nofence counter" "model:packed nofence counter"
  mpi-single mpi-multiple jcoll-1 jcoll-2)
{
  step "2 ranks, 8 B Broadcast, ns a call; $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  for round in $(seq "$ROUNDS"); do
    k=$(( (round - 1) % ${#systems[@]} ))
    for s in "${systems[@]:k}" "${systems[@]:0:k}"; do
      echo "round $round | $s | $(run_one "$s")"
    done
  done
} 2>&1 | tee "$OUT/exchange-model.log"
