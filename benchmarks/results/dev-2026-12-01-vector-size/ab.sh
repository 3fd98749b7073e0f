#!/usr/bin/env bash
# The JVM's defaults ("base") and -XX:MaxVectorSize=32 ("mvs32") alternated, ROUNDS rounds of
# benchmarks/compare/paired.sh --transport shm on the development VM (2 ranks, JDK from PATH), the host probed
# (benchmarks/compare/host_probe.c, built as /tmp/host_probe) before each run; results in OUT/VARIANT-ROUND/.
#   [OPS="allreduce reducescatter allgather alltoall broadcast"] [LO=128K HI=32M FACTOR=4] [ROUNDS=3]
#     [JCOLL_SHM_SINGLE_COPY=off] bash ab.sh OUT
set -uo pipefail
out=$(realpath -m "$1")  # before the cd below
cd "$(dirname "$0")/../../.."
for r in $(seq 1 "${ROUNDS:-3}"); do
  for v in base mvs32; do
    opts=""; [[ $v == mvs32 ]] && opts="-XX:MaxVectorSize=32"
    echo "== round $r $v $(date +%T) $(/tmp/host_probe 1)"
    JCOLL_JAVA_OPTS="$opts" timeout 900 bash benchmarks/compare/paired.sh --transport shm \
      -o "${OPS:-allreduce reducescatter allgather alltoall broadcast}" --out "$out/$v-$r" \
      -- -b "${LO:-128K}" -e "${HI:-32M}" -f "${FACTOR:-4}" -w 1000 -k 20 -B 20 --jit-warmup 20000 > /dev/null 2>&1
  done
done
echo "== end $(date +%T) $(/tmp/host_probe 1)"
