#!/usr/bin/env bash
# jcoll's TCP transport (or, with --transport shm, its shared-memory one) side by side with Open MPI over TCP,
# Open MPI's default single-node path (shared memory: openmpi-shm) and PyTorch's Gloo backend, in one go on this
# machine: the same ops, sizes, rank counts and timing rule (WARMUP untimed calls, then the mean of ITERS calls
# on the slowest rank; float32, SUM; one process per rank; loopback). Prints one table with the ratios, writes
# every system's CSV, the merged CSV and a bus-bandwidth chart per op to OUT.
#
#   benchmarks/compare/compare.sh [-n "2 4 8"] [-o "allreduce allgather reducescatter alltoall broadcast"]
#                                 [-b 8] [-e 128M] [-f 4] [-w 5] [-i 20] [-W 200] [-I 2000] [--out DIR]
#                                 [-r 1] [--only "jcoll openmpi openmpi-shm gloo"] [--transport tcp|shm]
# Sizes up to 64 KB are timed with -W/-I (short calls need many to average out the noise), larger ones with -w/-i.
# -r ROUNDS runs the systems one after another ROUNDS times (per op and rank count), so that a slow spell on a
# shared host falls on every system alike, each round starting one system later so that none always runs first;
# the table then gives medians and the range of the per-round ratios.
# Needs: mpicc and mpirun (Debian: libopenmpi-dev openmpi-bin), python3 with torch (Debian: python3-torch).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ranks="2 4 8"; ops="allreduce allgather reducescatter alltoall broadcast"
lo=8; hi=128M; factor=4; warmup=5; iters=20; small_warmup=200; small_iters=2000
out=/tmp/jcoll-compare; only="jcoll openmpi gloo"; rounds=1; transport=tcp
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) ranks=$2; shift 2 ;; -o) ops=$2; shift 2 ;; -b) lo=$2; shift 2 ;; -e) hi=$2; shift 2 ;;
    -f) factor=$2; shift 2 ;; -w) warmup=$2; shift 2 ;; -i) iters=$2; shift 2 ;; --out) out=$2; shift 2 ;;
    -W) small_warmup=$2; shift 2 ;; -I) small_iters=$2; shift 2 ;;
    -r) rounds=$2; shift 2 ;; --only) only=$2; shift 2 ;; --transport) transport=$2; shift 2 ;;
    *) sed -n '2,10p' "$0"; exit 2 ;;
  esac
done
bytes() { numfmt --from=iec "$1"; }
lo_b=$(bytes "$lo"); hi_b=$(bytes "$hi")
# two sweeps of the same size sequence: up to 64 KB (small), then the rest (large); either may be empty
sweeps=()
if (( lo_b <= 65536 )); then
  split=$lo_b; while (( split * factor <= 65536 && split * factor <= hi_b )); do split=$((split * factor)); done
  sweeps+=("$lo_b $split $small_warmup $small_iters")
  next=$((split * factor))
else
  split=0; next=$lo_b
fi
(( next <= hi_b )) && sweeps+=("$next $hi_b $warmup $iters")
mkdir -p "$out"
header="system,op,ranks,type,redop,bytes,count,time_us,algbw_gbs,busbw_gbs,wrong"

source "$here/openmpi.sh"
source "$here/torch_python.sh"
python=$torch_python
if [[ " $only " == *" openmpi"* ]]; then
  build_mpi_bench "$out" || { echo "compare: cannot run Open MPI"; exit 1; }
fi
[[ $only == *gloo* && -z $python ]] && { echo "compare: no python3 with torch (apt-get install python3-torch)"; exit 1; }

{
  echo "# $(date -u +%FT%TZ) on $(hostname): $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  echo "# ranks: $ranks; ops: $ops; sizes $lo..$hi x$factor; up to $split bytes (0: none): warm-up $small_warmup, timed $small_iters; above: warm-up $warmup, timed $iters; rounds: $rounds"
  echo "# $(java -version 2>&1 | head -1); $(mpirun --version 2>&1 | head -1); torch $($python -c 'import torch; print(torch.__version__)' 2>/dev/null)"
} | tee "$out/context.txt"
for n in $ranks; do
  for op in $ops; do
    for system in $only; do   # a fresh CSV and log per system: rows from an earlier run would join the medians
      csv="$out/$system-$op-$n.csv"; log="$out/$system-$op-$n.log"; : > "$log"; rm -f "$csv"
      [[ $system != jcoll ]] && echo "$header" > "$csv"
    done
    read -ra systems <<< "$only"
    for (( round = 1; round <= rounds; round++ )); do
      echo "== $op, $n ranks$( ((rounds > 1)) && echo ", round $round of $rounds")" >&2
      k=$(( (round - 1) % ${#systems[@]} ))  # each round starts one system later: none always runs first (ab.sh)
      for system in "${systems[@]:k}" "${systems[@]:0:k}"; do
        csv="$out/$system-$op-$n.csv"; log="$out/$system-$op-$n.log"
        for sweep in "${sweeps[@]}"; do
          read -r from to w i <<<"$sweep"
          case $system in
            jcoll)
              (cd "$root" && timeout 1200 ./jcoll perf "$op" -n "$n" -b "$from" -e "$to" -f "$factor" -w "$w" -i "$i" \
                  --transport "$transport" --csv "$csv.part" >> "$log" 2>&1) || echo "compare: jcoll perf failed: see $log" >&2
              if [[ -f $csv.part ]]; then
                if [[ -f $csv ]]; then tail -n +2 "$csv.part" >> "$csv"; else cp "$csv.part" "$csv"; fi
                rm -f "$csv.part"
              fi ;;
            openmpi)
              timeout 1200 "${mpirun[@]}" -np "$n" "$out/mpi_bench" "$op" "$from" "$to" "$factor" "$w" "$i" \
                >> "$csv" 2>> "$log" || echo "compare: mpi_bench failed: see $log" >&2 ;;
            openmpi-shm)
              timeout 1200 "${mpirun_shm[@]}" -np "$n" "$out/mpi_bench" "$op" "$from" "$to" "$factor" "$w" "$i" \
                2>> "$log" | sed 's/^openmpi-tcp,/openmpi-shm,/' >> "$csv" || echo "compare: mpi_bench failed: see $log" >&2 ;;
            gloo)
              timeout 1200 "$python" "$here/gloo_bench.py" "$n" "$op" "$from" "$to" "$factor" "$w" "$i" \
                >> "$csv" 2>> "$log" || echo "compare: gloo_bench failed: see $log" >&2 ;;
          esac
        done
      done
    done
  done
done
cd "$root"
cp=$(./jcoll classpath)
shopt -s nullglob
csvs=()   # only the systems that ran (--only), by exact name: openmpi's files are not openmpi-shm's
for system in $only; do for n in $ranks; do for op in $ops; do
  [[ -f $out/$system-$op-$n.csv ]] && csvs+=("$out/$system-$op-$n.csv")
done; done; done
java -cp "$cp" io.jcoll.bench.Comparison --csv "$out/merged.csv" "${csvs[@]}" | tee "$out/table.txt"
java -Djava.awt.headless=true -cp "$cp" io.jcoll.bench.Chart --out "$out/busbw.png" "${csvs[@]}" 2>/dev/null
