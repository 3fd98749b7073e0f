#!/usr/bin/env bash
# The README's charts, drawn by ./jcoll chart from committed CSVs (nothing is measured here):
#   docs/img/allreduce-gpu.png  jcoll over NCCL against PyTorch's NCCL backend, 2 ranks on 2x H200 (2026-11-22)
#   docs/img/allreduce-cpu.png  jcoll's TCP and shared-memory transports against Open MPI (over TCP and over its
#                               own shared memory) and Gloo, 8 ranks on the GPU host's 32 cores (2026-11-29)
#   bash benchmarks/readme-charts.sh [OUT_DIR]     (default docs/img)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/img}
mkdir -p "$out"
gpu=benchmarks/results/gpu-2026-11-22
cpu=benchmarks/results/gpu-2026-11-29-readme-32
./jcoll chart --op allreduce --title "2 ranks, 2x H200 (NVLink)" --out "$out/allreduce-gpu.png" \
  "$gpu/jcoll-allreduce.csv" "$gpu/torch.csv"
./jcoll chart --op allreduce --ranks 8 --title "8 ranks on 32 CPU cores" --out "$out/allreduce-cpu.png" \
  "$cpu"/tcp/{jcoll,openmpi,gloo}-allreduce-8.csv "$cpu"/shm/{jcoll,openmpi-shm}-allreduce-8.csv
