#!/usr/bin/env bash
# Would one copy a byte pay for the shared-memory All-to-All at 4 and 8 ranks (issue 19)? The C loop of
# a2a-one-copy.c (no JVM) reads each block straight out of the peer's send buffer through /proc/PID/mem (what a
# JVM can do with a FileChannel) and through process_vm_readv (Open MPI's CMA), and copies through 256 KB staging
# slots as jcoll does today ("two"), at 1-64 MB, 1 and 3 threads a rank, modes alternated in ROUNDS rounds; then
# jcoll's shm All-to-All against Open MPI's shared-memory path in the same lease (benchmarks/gpu/ab.sh).
#   [ROUNDS=2] [RANKS="4 8"] bash benchmarks/gpu/one-copy-feasibility.sh   (carry .gpu and .gpu-tests)
# Writes $OUT/c-loop.txt (mode ranks threads MB us/call busbw-GB/s) and $OUT/jcoll/ab.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jcoll-gpu}; mkdir -p "$OUT"
nproc > "$OUT/nproc.txt"; cat /proc/sys/kernel/yama/ptrace_scope >> "$OUT/nproc.txt" 2>&1; id >> "$OUT/nproc.txt"
gcc -O2 -pthread -o /tmp/a2a benchmarks/gpu/a2a-one-copy.c || { echo "a2a did not build"; exit 1; }
for round in $(seq "${ROUNDS:-2}"); do
  for n in ${RANKS:-4 8}; do
    for t in 1 3; do
      for mb in 1 4 16 64; do
        iters=$(( mb >= 16 ? 10 : 40 ))
        for mode in two procmem cma; do
          timeout 60 /tmp/a2a "$mode" "$n" "$t" "$mb" "$iters" || echo "$mode $n $t $mb failed"
        done
      done
    done
  done
done 2>&1 | tee "$OUT/c-loop.txt"
mkdir -p "$OUT/jcoll"
OUT="$OUT/jcoll" TRANSPORT=shm RANKS="${RANKS:-4 8}" OPS=alltoall LO=1M HI=64M FACTOR=4 WARM=3 ITERS=10 ROUNDS=2 \
  LIMIT=150 bash benchmarks/gpu/ab.sh > /dev/null 2>&1
tail -40 "$OUT/jcoll/ab.log"
