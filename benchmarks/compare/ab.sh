#!/usr/bin/env bash
# Builds or settings of jcoll side by side, alternated in rounds, with Open MPI over TCP timed in the same rounds:
# for checking what one change does on a machine whose speed drifts. Each round runs every variant and Open MPI,
# each round starting one system later in their list, so that none always runs first: one build run both first
# and third in each round took 1.05-1.11x its first place's time in third place on 32 cores of a Xeon, and
# 0.89-1.02x on 16 (2 ranks, 8-64 B, 4 rounds; benchmarks/results/gpu-2026-11-29-small-broadcast-trials/).
#
#   benchmarks/compare/ab.sh [-n "2"] [-o "broadcast alltoall allgather"] [-b 16M] [-e 16M] [-f 2] [-w 5] [-i 20]
#                            [-r 3] [--no-mpi] [--transport tcp|shm] [--jit-warmup CALLS] [--in-place] [--probe]
#                            VARIANT...
#   benchmarks/compare/ab.sh OLD_TREE NEW_TREE [options]          (the two-build form: variants old and new)
#
# A VARIANT is NAME or NAME:VAR=VALUE,VAR=VALUE...: `./jcoll perf` of this checkout run with those environment
# variables, so a build is JCOLL_CP=<its class path> (`./jcoll classpath` in a built tree, or a directory of its
# jars put before the bundle's on a host without Maven) and a setting is e.g. JCOLL_TCP_MIN_SEGMENT=128K. A TREE
# is a built checkout (`mvn -o -q package -DskipTests` in it; `git worktree add` makes an old one). Prints, per op,
# rank count and size, each round's out-of-place time in microseconds for every variant and Open MPI (the slowest
# rank's mean, as `jcoll perf` and mpi_bench report it), then the medians and each variant over the first.
# --transport shm runs jcoll's shared-memory transport and Open MPI's default path on one host (shared memory).
# --jit-warmup CALLS is jcoll perf's: untimed calls before the sweep, for small calls' steady time (C needs none).
# --in-place takes jcoll's in-place times instead (mpi_bench's stay as they are: Broadcast is in place there).
# --probe runs host_probe.c for a second before each system's run and after each round's last: the host's own
# cross-core round trip, which on the development VM moves between about 75, 130 and 450 ns for seconds to
# minutes at a time (where the VM's two CPUs are on the host, it seems). A round is steady where its probes stay
# within 1.5x of each other, so that every system of it met the same host; steady_rounds.py then gives, after
# each op's summary, the ratios of the steady rounds beside those of every round, and each system's time in each
# state of the host.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
ranks="2" ops="broadcast alltoall allgather" lo=16M hi=16M factor=2 warm=5 iters=20 rounds=3 mpi=1 transport=tcp
probe=0
jit=()
column=8  # jcoll perf's CSV: time_us out of place (8) or in place (12)
variants=() shown=()  # each variant, and how the header names it
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) ranks="$2"; shift 2 ;; -o) ops="$2"; shift 2 ;; -b) lo="$2"; shift 2 ;; -e) hi="$2"; shift 2 ;;
    -f) factor="$2"; shift 2 ;; -w) warm="$2"; shift 2 ;; -i) iters="$2"; shift 2 ;; -r) rounds="$2"; shift 2 ;;
    --no-mpi) mpi=0; shift ;; --transport) transport="$2"; shift 2 ;; --jit-warmup) jit=(--jit-warmup "$2"); shift 2 ;;
    --in-place) column=12; shift ;; --probe) probe=1; shift ;;
    -*) echo "ab: unknown argument $1"; exit 2 ;;
    *) if [[ -d $1 ]]; then  # a built tree: the first is old, the second new
         label=$([[ ${#variants[@]} == 0 ]] && echo old || echo new)
         variants+=("$label:JCOLL_CP=$("$1/jcoll" classpath)")
         shown+=("$label: the build in $1 ($(git -C "$1" rev-parse --short HEAD)$(git -C "$1" diff --quiet || echo +changes))")
       else
         variants+=("$1") shown+=("$1")
       fi
       shift ;;
  esac
done
[[ ${#variants[@]} -ge 1 ]] || { echo "ab: name at least one variant (or two built trees)"; exit 2; }
[[ $transport == tcp || $transport == shm ]] || { echo "ab: --transport is tcp or shm"; exit 2; }
bytes() { numfmt --from=iec "$1"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ $mpi == 1 ]]; then
  source "$here/openmpi.sh"
  build_mpi_bench "$work"
  [[ $transport == shm ]] && mpirun=("${mpirun_shm[@]}")  # each against its like: shared memory, or TCP on loopback
fi
if [[ $probe == 1 ]]; then
  cc -O2 -o "$work/host_probe" "$here/host_probe.c"
fi
if checkout=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
  git -C "$root" diff --quiet || checkout+=+changes
else
  checkout="a copy outside git"  # benchmarks/gpu/yama.sh runs one as another user
fi
echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) cores, checkout $checkout"
printf '# variant %s\n' "${shown[@]}"
echo "# args: -n \"$ranks\" -o \"$ops\" -b $lo -e $hi -f $factor -w $warm -i $iters -r $rounds --transport $transport ${jit[*]}$([[ $column == 12 ]] && echo " --in-place")$([[ $probe == 1 ]] && echo " --probe")"

# both write results CSV rows (system,op,ranks,type,redop,bytes,count,time_us,...): keeps bytes and time
bytes_and_time() { awk -F, -v c="${column:-8}" '!/^system,/ && NF >= c {print $6, $c}' "$@"; }
jcoll_times() {  # VARIANT OP RANKS
  local settings=() assignment
  if [[ $1 == *:* ]]; then IFS=, read -ra settings <<< "${1#*:}"; fi
  for assignment in "${settings[@]}"; do [[ $assignment == *=* ]] || { echo "ab: bad setting '$assignment' in $1" >&2; exit 2; }; done
  env "${settings[@]}" "$root/jcoll" perf "$2" -n "$3" -b "$lo" -e "$hi" -f "$factor" -w "$warm" -i "$iters" \
    --transport "$transport" "${jit[@]}" --csv "$work/jcoll.csv" >/dev/null 2>&1 && bytes_and_time "$work/jcoll.csv"
}
probe_host() {  # ROUND WHEN: the host's round trip and hand-off rate, into the probes file and the log
  [[ $probe == 1 ]] || return 0
  "$work/host_probe" 1 | awk -v r="$1" -v when="$2" \
    '{print "# probe, round " r ", " when ": round trip " $4 " ns, hand-off " $7 " GB/s"}' | tee -a "$work/block"
}
mpi_times() { "${mpirun[@]}" -np "$2" "$work/mpi_bench" "$1" "$(bytes "$lo")" "$(bytes "$hi")" "$factor" "$warm" \
  "$iters" 2>/dev/null | column=8 bytes_and_time; }

for op in $ops; do
  for n in $ranks; do
    : > "$work/rows"
    : > "$work/block"  # this op's probes and times as logged, for steady_rounds.py
    systems=("${variants[@]}")
    [[ $mpi == 1 ]] && systems+=("@mpi")  # '@': no variant's name
    for r in $(seq 1 "$rounds"); do
      # each round's times are printed as they come (#-lines), so that a run cut short still shows them
      k=$(( (r - 1) % ${#systems[@]} ))
      for v in "${systems[@]:k}" "${systems[@]:0:k}"; do
        name=${v%%:*}
        probe_host "$r" "before-${name#@}"
        if [[ $v == @mpi ]]; then
          mpi_times "$op" "$n" | sed "s/^/$r mpi /"
        else
          jcoll_times "$v" "$op" "$n" | sed "s/^/$r $name /"
        fi | tee -a "$work/rows" | sed "s/^/# $op $n ranks, round /" | tee -a "$work/block"
      done
      probe_host "$r" after
    done
    python3 - "$op" "$n" "$work/rows" "${variants[0]%%:*}" <<'EOF'
import statistics, sys
from collections import defaultdict
op, n, path = sys.argv[1], sys.argv[2], sys.argv[3]
t = defaultdict(dict)  # (size) -> system -> [per round]
for line in open(path):
    r, system, size, us = line.split()
    t[int(size)].setdefault(system, []).append(float(us))
first = sys.argv[4]
for size in sorted(t):
    row = t[size]
    med = {s: statistics.median(v) for s, v in row.items()}
    rounds = "  ".join(f"{s} " + "/".join(f"{x:.3g}" for x in v) for s, v in row.items())
    medians = ", ".join(f"{s} {m:.3g} us" for s, m in med.items())
    ratios = ", ".join(f"{s}/{first} {m / med[first]:.2f}x" for s, m in med.items() if s not in (first, 'mpi'))
    versus_mpi = ", ".join(f"{s}/mpi {m / med['mpi']:.2f}x" for s, m in med.items() if 'mpi' in med and s != 'mpi')
    parts = "; ".join(p for p in (f"medians {medians}", ratios, versus_mpi) if p)
    print(f"{op:13s} {n:>2s} ranks {size:>10d} B: {parts}   ({rounds})")
EOF
    if [[ $probe == 1 ]]; then
      python3 "$here/steady_rounds.py" --variant "${variants[0]%%:*}" "$work/block"
    fi
  done
done
