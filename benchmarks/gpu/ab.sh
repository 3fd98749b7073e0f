#!/usr/bin/env bash
# benchmarks/compare/ab.sh on the GPU host's CPUs: the bundle's build ("new"), settings of it (VARIANTS) and, when
# OLD_JARS names a directory of a previous build's jars (put before the bundle's on the class path), that build
# ("old", first), alternated in rounds with Open MPI over TCP timed in the same rounds (TRANSPORT=shm: jcoll's
# shared-memory transport, and Open MPI's default path on one host, shared memory).
#   [OLD_JARS=.gpu-old] [TRANSPORT=shm] RANKS="8 4" OPS="allreduce allgather" [LO=8M HI=32M FACTOR=2 WARM=5 ITERS=50 ROUNDS=2] \
#     [LIMIT=200] [NO_MPI=1] [NO_NEW=1] [JIT_WARMUP=CALLS] [IN_PLACE=1] \
#     [VARIANTS="new-128K:JCOLL_TCP_MIN_SEGMENT=128K ch1:JCOLL_TCP_CHANNELS=1"] bash benchmarks/gpu/ab.sh
# Writes $OUT/ab.log (and lscpu.txt); each ab.sh run is cut at LIMIT seconds, its finished rounds kept. NO_MPI=1
# leaves Open MPI out (for ops its mpi_bench does not run: reduce, gather, scatter); IN_PLACE=1 times jcoll in
# place; NO_NEW=1 leaves out the bundle's build with its defaults (VARIANTS then name every setting timed).
# An old build's jars, here: mkdir .gpu-old && cp OLD_TREE/jcoll-*/target/jcoll-*-SNAPSHOT.jar
#   OLD_TREE/benchmarks/target/benchmarks-*-SNAPSHOT.jar .gpu-old/ (not the shaded benchmarks.jar: carry is 64 MiB).
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export MPI_BENCH=$PWD/.gpu-tests/mpi_bench
lscpu > "$OUT/lscpu.txt"
variants=()
[[ -n ${OLD_JARS:-} ]] && variants+=("old:JCOLL_CP=$PWD/$OLD_JARS/*:$JCOLL_CP")
[[ -z ${NO_NEW:-} ]] && variants+=(new)
read -ra more <<< "${VARIANTS:-}"
variants+=("${more[@]}")
for n in ${RANKS:-8}; do
  for op in ${OPS:-allreduce}; do
    step "$op, $n ranks"
    timeout "${LIMIT:-200}" bash benchmarks/compare/ab.sh -n "$n" -o "$op" -b "${LO:-8M}" -e "${HI:-32M}" -f "${FACTOR:-2}" \
      -w "${WARM:-5}" -i "${ITERS:-50}" -r "${ROUNDS:-2}" --transport "${TRANSPORT:-tcp}" ${NO_MPI:+--no-mpi} ${JIT_WARMUP:+--jit-warmup "$JIT_WARMUP"} ${IN_PLACE:+--in-place} \
      "${variants[@]}"
  done
done 2>&1 | tee "$OUT/ab.log"
