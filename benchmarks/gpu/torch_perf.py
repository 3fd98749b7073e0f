"""PyTorch's torch.distributed NCCL backend, measured the way `jcoll perf` measures:
one process per GPU, warm-up, then ITERS calls launched back to back and one
synchronize, time per call on the slowest rank, nccl-tests' bus-bandwidth
factors. Writes a CSV with the same columns as `jcoll perf --csv`.

    python3 torch_perf.py OUT.csv [MIN_BYTES] [MAX_BYTES] [ITERS]
"""
import csv
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

OPS = ["allreduce", "allgather", "reducescatter", "alltoall"]


def bus_factor(op, n):
    return 2.0 * (n - 1) / n if op == "allreduce" else (n - 1) / n


def run(op, buf, out, n):
    if op == "allreduce":
        dist.all_reduce(buf)
    elif op == "allgather":
        dist.all_gather_into_tensor(out, buf[: buf.numel() // n])
    elif op == "reducescatter":
        dist.reduce_scatter_tensor(out[: buf.numel() // n], buf)
    else:
        dist.all_to_all_single(out, buf)


def worker(rank, n, path, lo, hi, iters):
    os.environ["RANK"], os.environ["WORLD_SIZE"] = str(rank), str(n)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
    rows = []
    for op in OPS:
        size = lo
        while size <= hi:
            count = max(size // 4 // n * n, n)
            buf = torch.ones(count, dtype=torch.float32, device="cuda")
            out = torch.empty(count, dtype=torch.float32, device="cuda")
            for _ in range(5):
                run(op, buf, out, n)
            torch.cuda.synchronize()
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                run(op, buf, out, n)
            torch.cuda.synchronize()
            t = torch.tensor([(time.perf_counter() - t0) / iters], device="cuda")
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            sec = t.item()
            nbytes = count * 4
            algbw = nbytes / sec / 1e9
            rows.append(["torch-nccl", op, n, "float", "sum", nbytes, count, sec * 1e6, algbw, algbw * bus_factor(op, n)])
            size *= 2
    if rank == 0:
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["system", "op", "ranks", "type", "redop", "bytes", "count", "time_us", "algbw_gbs", "busbw_gbs"])
            w.writerows(rows)
        for r in rows:
            print("%-14s %12d %10.2f us %8.2f GB/s busbw" % (r[1], r[5], r[7], r[9]), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    path = sys.argv[1]
    lo = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    hi = int(sys.argv[3]) if len(sys.argv) > 3 else 512 << 20
    iters = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    n = torch.cuda.device_count()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29611")
    mp.spawn(worker, args=(n, path, lo, hi, iters), nprocs=n)
