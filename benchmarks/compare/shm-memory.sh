#!/usr/bin/env bash
# What the shm transport keeps in memory for one large AllReduce: runs `jcoll perf` on SIZE (1G) at N (2) ranks
# and samples every rank's /proc/<pid>/status twice a second: the peak of its shared pages (RssShmem: the
# segment, as much of it as the rank touched) and of its private memory (RssAnon: perf's own buffers, the JVM,
# and the transport's stage and scratch). Prints the transport's account of its segment, then one line per rank.
#   benchmarks/compare/shm-memory.sh [SIZE] [N]
set -euo pipefail
size=${1:-1G} n=${2:-2}
root="$(cd "$(dirname "$0")/../.." && pwd)"
log="$(mktemp)" samples="$(mktemp)"
trap 'rm -f "$log" "$samples"' EXIT
"$root/jcoll" perf allreduce -n "$n" --transport shm -b "$size" -e "$size" -w 1 -i 3 > "$log" 2>&1 &
job=$!
while kill -0 "$job" 2>/dev/null; do
  for pid in $(pgrep -f 'io.jcoll.bench.Perf' || true); do
    awk -v pid="$pid" '/^RssShmem|^RssAnon/ {v[$1] = $2} END {if ("RssShmem:" in v) print pid, v["RssShmem:"], v["RssAnon:"]}' \
      "/proc/$pid/status" 2>/dev/null || true
  done >> "$samples"
  sleep 0.5
done
wait "$job" || { cat "$log"; exit 1; }
grep -o 'one segment of [^;]*' "$log" | head -1
# the ranks are the processes that mapped the segment (the launcher maps none)
awk '{ if ($2 > shm[$1]) shm[$1] = $2; if ($3 > anon[$1]) anon[$1] = $3 }
     END { for (p in shm) if (shm[p] > 0) printf "pid %s: RssShmem peak %d KiB, RssAnon peak %d MiB\n", p, shm[p], anon[p] / 1024 }' "$samples"
