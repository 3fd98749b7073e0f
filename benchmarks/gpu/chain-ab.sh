#!/usr/bin/env bash
# The ring's steps as one chain (a segment goes on to the next step as soon as it is reduced or has arrived)
# against the build before it, on the GPU host's CPUs, and with shorter minimum segments, which give a ring's
# short blocks segments to stream: benchmarks/compare/ab.sh in alternated rounds, Open MPI over TCP in the same
# rounds. OLD_JARS is a directory of the previous build's jars, put before the bundle's on the class path.
#   OLD_JARS=.gpu-old RANKS="8 4" OPS="allreduce allgather" [LO=8M HI=32M ROUNDS=2 LIMIT=200] \
#     [VARIANTS="new-128K:JCOLL_TCP_MIN_SEGMENT=128K ..."] bash benchmarks/gpu/chain-ab.sh
# Writes $OUT/chain-ab.log (and lscpu.txt); each ab.sh run is cut at LIMIT seconds, its finished rounds kept.
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export MPI_BENCH=$PWD/.gpu-tests/mpi_bench
lscpu > "$OUT/lscpu.txt"
read -ra variants <<< "${VARIANTS:-new-128K:JCOLL_TCP_MIN_SEGMENT=128K}"
for n in ${RANKS:-8}; do
  for op in ${OPS:-allreduce}; do
    step "$op, $n ranks"
    timeout "${LIMIT:-200}" bash benchmarks/compare/ab.sh -n "$n" -o "$op" -b "${LO:-8M}" -e "${HI:-32M}" -f 2 -w 5 \
      -i 50 -r "${ROUNDS:-2}" "old:JCOLL_CP=$PWD/$OLD_JARS/*:$JCOLL_CP" new "${variants[@]}"
  done
done 2>&1 | tee "$OUT/chain-ab.log"
