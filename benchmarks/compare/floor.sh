#!/usr/bin/env bash
# How close each system comes to what loopback TCP itself allows on this machine, and so how far ahead of the
# best peer any TCP library could possibly be. Runs compare.sh with the arguments given (its --out, default
# /tmp/jcoll-floor), with tcp_bound (a two-process exchange over one loopback connection, no library) timed
# three times before and three times after it, then prints, for every op, rank count and size of 8 MB and more:
#
#   floor   the time the bytes the op must move take through the kernel: every byte a rank sends is copied
#           into the kernel by its sender and out by its receiver, each copy on the CPU of the rank whose
#           system call it is; so the floor is (bytes copied by all ranks) / (min(ranks, cores) x the copy
#           rate per core that tcp_bound's exchange reached). Bytes copied by all ranks, S the op's size
#           (nccl-tests' convention): AllReduce 4(n-1)S, AllGather, ReduceScatter, All-to-All and Broadcast
#           2(n-1)S (the bandwidth-optimal schedules; a reduction's arithmetic is not counted, so the floor
#           is below what an AllReduce can reach).
#   ratios  each system's time over the floor; "best peer / floor" is the most any TCP library could be
#           ahead of the best peer here.
#
#   benchmarks/compare/floor.sh -n "2 4 8" -o "allreduce alltoall" -b 8M -e 16M -f 2 -w 5 -i 20 -r 3 --only "jcoll openmpi"
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out=/tmp/jcoll-floor
args=("$@")
for (( i = 0; i < ${#args[@]}; i++ )); do
  [[ ${args[$i]} == --out ]] && out="${args[$((i + 1))]}"
done
mkdir -p "$out"
cc -O2 -pthread -o "$out/tcp_bound" "$here/tcp_bound.c"
exchange=8388608   # bytes each way: a 2-rank ring step of a 16 MB message
bound() { for _ in 1 2 3; do "$out/tcp_bound" exchange "$exchange" 5 20; done; }
{ echo "# before"; bound; } | tee "$out/tcp_bound.txt"
"$here/compare.sh" "$@" --out "$out"
{ echo "# after"; bound; } | tee -a "$out/tcp_bound.txt"
python3 - "$out" "$exchange" "$(nproc)" <<'EOF'
import csv, statistics, sys
out, exchange, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
times = [float(l.split(":")[1].split("us")[0]) for l in open(f"{out}/tcp_bound.txt") if l.startswith("exchange")]
t = statistics.median(times)
rate = 2 * exchange / t  # bytes per microsecond each core copies: its process sends and receives `exchange`
print(f"\nloopback copy rate per core: {rate / 1e3:.2f} GB/s (tcp_bound exchange of {exchange} bytes each way: "
      f"median {t:.0f} us of {len(times)}, {min(times):.0f}-{max(times):.0f}); {cores} cores")
copies = {"allreduce": 4, "allgather": 2, "reducescatter": 2, "alltoall": 2, "broadcast": 2}
print(f"{'op':14s} {'ranks':>5s} {'bytes':>10s} {'floor us':>9s}  system / floor ...   best peer / floor")
for row in csv.DictReader(open(f"{out}/merged.csv")):
    n, size, op = int(row["ranks"]), int(row["bytes"]), row["op"]
    if size < 8 << 20 or op not in copies:
        continue
    floor = copies[op] * (n - 1) * size / (min(n, cores) * rate)
    systems = {k[:-len("_time_us")]: float(v) for k, v in row.items() if k.endswith("_time_us") and v not in ("", "nan")}
    peers = [v for k, v in systems.items() if k != "jcoll"]
    ratios = "  ".join(f"{k} {v / floor:.2f}" for k, v in systems.items())
    best = f"{min(peers) / floor:.2f}" if peers else "-"
    print(f"{op:14s} {n:5d} {size:10d} {floor:9.0f}  {ratios}   {best}")
EOF
