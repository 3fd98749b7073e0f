#!/usr/bin/env bash
# benchmarks/compare/compare.sh on the GPU host's CPUs (32 cores, loopback): jcoll's TCP transport, Open MPI over
# TCP and Gloo, side by side. The host has no mpicc: mpi_bench is built here against the same libmpi.so.40
# (mpicc -O2 -o .gpu-tests/mpi_bench benchmarks/compare/mpi_bench.c) and carried in .gpu-tests.
#   [TAG=name SETTING=value] OPS="allgather reducescatter" RANKS="2 4 8" LIMIT=400 bash benchmarks/gpu/cpu-compare.sh [compare.sh options...]
# Writes $OUT/compare-<ops>.tgz (every CSV, log and the table, also what a run cut short by LIMIT seconds left).
set -uo pipefail
source "$(dirname "$0")/steps.sh"
export MPI_BENCH=$PWD/.gpu-tests/mpi_bench
name="compare-${OPS// /-}${TAG:+-$TAG}"   # TAG names a variant (settings in the environment)
timeout "${LIMIT:-1200}" bash benchmarks/compare/compare.sh -n "${RANKS:-2 4 8}" -o "$OPS" --out "/tmp/$name" "$@" 2>&1 | tee "$OUT/$name.log"
rm -f "/tmp/$name/mpi_bench"
tar czf "$OUT/$name.tgz" -C /tmp "$name"
