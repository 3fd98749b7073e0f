"""PyTorch's NCCL backend on the process-group operations, measured the way `jcoll perf` measures them:
one process per GPU, warm-up, ITERS calls launched back to back and one synchronize, time per call on the
slowest rank.

  alltoallv: all_to_all_single with split sizes, the layout of `jcoll perf alltoallv --skew S` (rank r sends
             rank p floor(base * (1 + S * (2 * ((r + p) mod n) / (n - 1) - 1))) elements), size = n * base * 4
  sendrecv:  batch_isend_irecv of one send to the next rank and one receive from the previous (nccl-tests'
             sendrecv_perf pattern), and of PAIRS such pairs in one batch (pipeline parallelism's batches)

    python3 torch_groups.py OUT.csv SKEW PAIRS [MIN_BYTES] [MAX_BYTES] [ITERS]
"""
import csv
import math
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def splits(base, skew, rank, n):
    return [int(math.floor(base * (1 + skew * ((2.0 * ((rank + p) % n) / (n - 1) - 1) if n > 1 else 0))))
            for p in range(n)]


def timed(fn, iters):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    dist.barrier()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    t = torch.tensor([(time.perf_counter() - t0) / iters], device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def worker(rank, n, path, skew, pairs, lo, hi, iters):
    os.environ["RANK"], os.environ["WORLD_SIZE"] = str(rank), str(n)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
    rows = []
    size = lo
    while size <= hi:
        base = max(size // 4 // n, 1)
        s = splits(base, skew, rank, n)
        inp = torch.ones(sum(s), dtype=torch.float32, device="cuda")
        out = torch.empty(sum(s), dtype=torch.float32, device="cuda")
        sec = timed(lambda: dist.all_to_all_single(out, inp, output_split_sizes=s, input_split_sizes=s), iters)
        nbytes = base * n * 4
        rows.append(["torch-nccl", "alltoallv-skew%.2f" % skew, n, nbytes, sec * 1e6, nbytes / sec / 1e9 * (n - 1) / n])

        count = max(size // 4, 1)
        nxt, prv = (rank + 1) % n, (rank + n - 1) % n
        for k in (1, pairs):
            sends = [torch.ones(count, device="cuda") for _ in range(k)]
            recvs = [torch.empty(count, device="cuda") for _ in range(k)]

            def batch():
                ops = []
                for i in range(k):
                    ops.append(dist.P2POp(dist.isend, sends[i], nxt))
                    ops.append(dist.P2POp(dist.irecv, recvs[i], prv))
                for r in dist.batch_isend_irecv(ops):
                    r.wait()

            sec = timed(batch, iters)
            rows.append(["torch-nccl", "sendrecv-x%d" % k, n, count * 4, sec * 1e6, count * 4 * k / sec / 1e9])
        size *= 4
    if rank == 0:
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["system", "op", "ranks", "bytes", "time_us", "busbw_gbs"])
            w.writerows(rows)
        for r in rows:
            print("%-22s %12d %10.2f us %8.2f GB/s busbw" % (r[1], r[3], r[4], r[5]), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    path, skew, pairs = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    lo = int(sys.argv[4]) if len(sys.argv) > 4 else 1 << 20
    hi = int(sys.argv[5]) if len(sys.argv) > 5 else 256 << 20
    iters = int(sys.argv[6]) if len(sys.argv) > 6 else 20
    n = torch.cuda.device_count()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29613")
    mp.spawn(worker, args=(n, path, skew, pairs, lo, hi, iters), nprocs=n)
