#!/usr/bin/env bash
# Two builds of jcoll side by side, alternated in rounds, with Open MPI over TCP timed in the same rounds: for
# checking what one change does on a machine whose speed drifts (each round runs old, new, then Open MPI).
#
#   benchmarks/compare/ab.sh OLD_TREE NEW_TREE [-n "2"] [-o "broadcast alltoall allgather"] [-b 16M] [-e 16M]
#                            [-f 2] [-w 5] [-i 20] [-r 3] [--no-mpi]
#
# OLD_TREE and NEW_TREE are built checkouts (`mvn -o -q package -DskipTests` in each; `git worktree add` makes the
# old one). Prints, per op, rank count and size, each round's out-of-place time in microseconds for old, new and
# Open MPI (the slowest rank's mean, as `jcoll perf` and mpi_bench report it), then the medians and new/old.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
old="$1" new="$2"; shift 2
ranks="2" ops="broadcast alltoall allgather" lo=16M hi=16M factor=2 warm=5 iters=20 rounds=3 mpi=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) ranks="$2"; shift 2 ;; -o) ops="$2"; shift 2 ;; -b) lo="$2"; shift 2 ;; -e) hi="$2"; shift 2 ;;
    -f) factor="$2"; shift 2 ;; -w) warm="$2"; shift 2 ;; -i) iters="$2"; shift 2 ;; -r) rounds="$2"; shift 2 ;;
    --no-mpi) mpi=0; shift ;;
    *) echo "ab: unknown argument $1"; exit 2 ;;
  esac
done
bytes() { numfmt --from=iec "$1"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ $mpi == 1 ]]; then
  source "$here/openmpi.sh"
  build_mpi_bench "$work"
fi
echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) cores; old $(git -C "$old" rev-parse --short HEAD)$(git -C "$old" diff --quiet || echo +changes), new $(git -C "$new" rev-parse --short HEAD)$(git -C "$new" diff --quiet || echo +changes)"
echo "# args: -n \"$ranks\" -o \"$ops\" -b $lo -e $hi -f $factor -w $warm -i $iters -r $rounds"

# both write results CSV rows (system,op,ranks,type,redop,bytes,count,time_us,...): keeps bytes and time
bytes_and_time() { awk -F, '!/^system,/ && NF >= 8 {print $6, $8}' "$@"; }
jcoll_times() { "$1/jcoll" perf "$2" -n "$3" -b "$lo" -e "$hi" -f "$factor" -w "$warm" -i "$iters" \
  --transport tcp --csv "$work/jcoll.csv" >/dev/null 2>&1 && bytes_and_time "$work/jcoll.csv"; }
mpi_times() { "${mpirun[@]}" -np "$2" "$work/mpi_bench" "$1" "$(bytes "$lo")" "$(bytes "$hi")" "$factor" "$warm" \
  "$iters" 2>/dev/null | bytes_and_time; }

for op in $ops; do
  for n in $ranks; do
    : > "$work/rows"
    for r in $(seq 1 "$rounds"); do
      jcoll_times "$old" "$op" "$n" | sed "s/^/$r old /" >> "$work/rows"
      jcoll_times "$new" "$op" "$n" | sed "s/^/$r new /" >> "$work/rows"
      [[ $mpi == 1 ]] && mpi_times "$op" "$n" | sed "s/^/$r mpi /" >> "$work/rows"
    done
    python3 - "$op" "$n" "$work/rows" <<'EOF'
import statistics, sys
from collections import defaultdict
op, n, path = sys.argv[1], sys.argv[2], sys.argv[3]
t = defaultdict(dict)  # (size) -> system -> [per round]
for line in open(path):
    r, system, size, us = line.split()
    t[int(size)].setdefault(system, []).append(float(us))
for size in sorted(t):
    row = t[size]
    med = {s: statistics.median(v) for s, v in row.items()}
    rounds = "  ".join(f"{s} " + "/".join(f"{x:.0f}" for x in v) for s, v in row.items())
    mpi = f", new/mpi {med['new'] / med['mpi']:.2f}x" if 'mpi' in med else ""
    print(f"{op:13s} {n:>2s} ranks {size:>10d} B: medians old {med['old']:.0f} us, new {med['new']:.0f} us"
          + (f", mpi {med['mpi']:.0f} us" if 'mpi' in med else "")
          + f"; new/old {med['new'] / med['old']:.2f}x{mpi}   ({rounds})")
EOF
  done
done
