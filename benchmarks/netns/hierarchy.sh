#!/usr/bin/env bash
# Issue 18's figures on namespace "hosts" (root): by default its two-level ones, 2 hosts x 2 ranks and 2 hosts x 4
# ranks on 1 Gbit/s links (tbf), each placement contiguous ({0,1} | {2,3}) and interleaved ({0,2} | {1,3}); with
# SHAPES="0 1 2 3" OPS="allreduce allgather", its 4 hosts x 1 rank. Bus bandwidth (nccl-tests' definition) at
# 16-64 MB, as a multiple of the link rate: jcoll as it chooses (two tiers:
# shared memory within a host, TCP between hosts), jcoll on TCP alone (its own two levels, JCOLL_TRANSPORT=tcp),
# jcoll with one ring in host order (JCOLL_TCP_HIERARCHY=0), and PyTorch's Gloo where torch imports, in the same
# namespaces and placement, one system after another in each of ROUNDS rounds. Every rank is started by hand
# (hosts.sh place: RANK, WORLD_SIZE, MASTER_ADDR), so that the placement is whatever the shape says.
# A shape is the host of each rank, in rank order; as many hosts are made as the shapes name.
# A system named jcoll@NAME=VALUE is jcoll with that variable set too (jcoll@JCOLL_TCP_CHANNELS=1, say).
# DELAY=2ms adds that delay to every host's link (hosts.sh: netem, or its user-space switch where netem is missing).
# CC sets the hosts' TCP congestion control (hosts.sh up --cc: cubic, Linux's default, unless told; `host` keeps this
# machine's, which may be BBR, whose PROBE_RTT halts a long transfer for 200 ms every 10 s).
# PERF_ARGS are added to every jcoll run's `jcoll perf` arguments (--jit-warmup 0, say: the small calls that warm the
# compiler up take a minute and a half over 2 ms links, and only the 16-64 MB calls are timed here).
#   [RATE=1gbit] [DELAY=] [MTU=1500] [CC=cubic] [ROUNDS=2] [PERF_ARGS=] [SHAPES="0 0 1 1|0 1 0 1|..."] [OPS=allreduce] [SYSTEMS="jcoll jcoll-tcp ..."]
#   [OUT=/tmp/jcoll-hierarchy] bash benchmarks/netns/hierarchy.sh
# Writes $OUT/hierarchy.csv (round, shape, system, op, bytes, busbw) and prints the medians per shape, system, op
# and size.
set -uo pipefail
cd "$(dirname "$0")/../.."
HOSTS=benchmarks/netns/hosts.sh
RATE=${RATE:-1gbit}
ROUNDS=${ROUNDS:-2}
SHAPES=${SHAPES:-0 0 1 1|0 1 0 1|0 0 0 0 1 1 1 1|0 1 0 1 0 1 0 1}
OPS=${OPS:-allreduce}
OUT=${OUT:-/tmp/jcoll-hierarchy}; mkdir -p "$OUT"
CP=${CP:-$(./jcoll classpath)}
JAVA=${JAVA:-java}
PERF_ARGS=${PERF_ARGS:-}
source benchmarks/compare/torch_python.sh
systems=${SYSTEMS:-jcoll jcoll-tcp jcoll-ring${torch_python:+ gloo}}
link_gbs=$(python3 -c "import sys; r=sys.argv[1].lower(); m={'g':1e9,'m':1e6,'k':1e3}; print(float(r.rstrip('bit')[:-1])*m[r.rstrip('bit')[-1]]/8e9)" "$RATE")

IFS='|' read -ra shapes <<< "$SHAPES"
hosts=$(( $(tr ' |' '\n\n' <<< "$SHAPES" | sort -n | tail -1) + 1 ))
trap 'bash $HOSTS down' EXIT INT TERM
bash $HOSTS up "$hosts" --rate "$RATE" --mtu "${MTU:-1500}" ${CC:+--cc "$CC"} ${DELAY:+--delay "$DELAY"}
csv=$OUT/hierarchy.csv
echo "round,shape,system,op,bytes,busbw_gbs" > "$csv"
for round in $(seq "$ROUNDS"); do
  for shape in "${shapes[@]}"; do
   for op in $OPS; do
    for system in $systems; do
      echo "=== round $round: hosts of ranks [$shape], $system, $op"
      rows=$OUT/rows.csv; rm -f "$rows"
      case $system in
        jcoll|jcoll-tcp|jcoll-ring|jcoll@*)
          hierarchy=auto; [[ $system == jcoll-ring ]] && hierarchy=0
          transport=auto; [[ $system == jcoll-tcp ]] && transport=tcp
          extra=(); [[ $system == jcoll@* ]] && extra=("${system#jcoll@}")
          bash $HOSTS place "$shape" JCOLL_TIMEOUT=120s JCOLL_TOKEN=hierarchy-bench JCOLL_TCP_HIERARCHY=$hierarchy \
            JCOLL_TRANSPORT=$transport "${extra[@]}" -- \
            "$JAVA" -cp "$CP" io.jcoll.bench.Perf "$op" -b 16M -e 64M -f 2 -w 2 -i 5 $PERF_ARGS --csv "$rows" \
            | grep -E "rank 0: (# network| +[0-9])"
          tail -n +2 "$rows" | awk -F, -v r="$round" -v s="$shape" -v y="$system" -v o="$op" '{print r "," s "," y "," o "," $6 "," $10}' >> "$csv"
          ;;
        gloo)
          [[ -n $torch_python ]] || { echo "no python3 here imports torch: Gloo left out"; continue; }
          bash $HOSTS place "$shape" GLOO_SOCKET_IFNAME=eth0 -- "$torch_python" benchmarks/compare/gloo_bench.py 0 \
            "$op" 16777216 67108864 2 2 5 | tee "$rows" | grep "rank 0: gloo"
          grep -o "gloo,$op,.*" "$rows" | awk -F, -v r="$round" -v s="$shape" -v o="$op" '{print r "," s ",gloo," o "," $6 "," $10}' >> "$csv"
          ;;
      esac
    done
   done
  done
done
python3 - "$csv" "$link_gbs" "$RATE" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
link = float(sys.argv[2])
print(f"\nBus bandwidth, median of rounds (GB/s, and x the {sys.argv[3]} link rate = {link:.3f} GB/s)")
print(f"{'hosts of ranks':<20} {'op':<10} {'system':<11} " + " ".join(f"{b:>14}" for b in ("16 MB", "32 MB", "64 MB")))
keys = []
for r in rows:
    if (r["shape"], r["op"], r["system"]) not in keys:
        keys.append((r["shape"], r["op"], r["system"]))
for shape, op, system in keys:
    cells = []
    for size in (16 << 20, 32 << 20, 64 << 20):
        v = [float(r["busbw_gbs"]) for r in rows
             if (r["shape"], r["op"], r["system"]) == (shape, op, system) and int(r["bytes"]) == size]
        cells.append(f"{statistics.median(v):.3f} {statistics.median(v) / link:4.2f}x" if v else "-")
    print(f"{'[' + shape + ']':<20} {op:<10} {system:<11} " + " ".join(f"{c:>14}" for c in cells))
PY
