"""The Gloo side of benchmarks/compare: torch.distributed with backend="gloo" on CPU float32 tensors, timed by
the rule jcoll perf and mpi_bench.c use: a barrier, WARMUP untimed calls, a barrier, ITERS timed calls; each
rank's mean per call, and the slowest rank's mean is the figure. Sizes follow nccl-tests (BYTES is the largest
buffer of the call). Prints jcoll perf's CSV columns. Gloo has no reduce-scatter in PyTorch's Gloo backend: that
op prints nothing.

  python3 gloo_bench.py RANKS OP MIN_BYTES MAX_BYTES FACTOR WARMUP ITERS

With RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT in the environment it runs as that one rank (started by hand
on each host, as benchmarks/netns/hosts.sh place does) instead of starting RANKS processes here.
"""
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

BUS = {"allreduce": lambda n: 2.0 * (n - 1) / n, "broadcast": lambda n: 1.0}


def call(op, send, recv, parts, n):
    if op == "allreduce":
        dist.all_reduce(recv)  # in place, as Gloo's all_reduce always is
    elif op == "allgather":
        dist.all_gather(parts, send)
    elif op == "alltoall":
        dist.all_to_all_single(recv, send)
    elif op == "broadcast":
        dist.broadcast(recv, 0)
    else:
        raise ValueError(op)


def rank_main(rank, n, port, op, lo, hi, factor, warmup, iters, addr="127.0.0.1"):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://{addr}:{port}", rank=rank, world_size=n)
    bytes_ = lo
    while bytes_ <= hi:
        total = bytes_ // 4
        if op not in ("allreduce", "broadcast"):
            total -= total % n
        if total >= (1 if op in ("allreduce", "broadcast") else n):
            per_rank = total // n
            send = torch.ones(per_rank if op == "allgather" else total)
            recv = torch.zeros(total)
            parts = list(recv.split(per_rank)) if op == "allgather" else None
            dist.barrier()
            for _ in range(warmup):
                call(op, send, recv, parts, n)
            dist.barrier()
            start = time.perf_counter()
            for _ in range(iters):
                call(op, send, recv, parts, n)
            mean = torch.tensor([(time.perf_counter() - start) / iters], dtype=torch.float64)
            dist.all_reduce(mean, op=dist.ReduceOp.MAX)
            if rank == 0:
                slowest = mean.item()
                algbw = total * 4 / slowest / 1e9
                bus = algbw * BUS.get(op, lambda k: (k - 1) / k)(n)
                print(f"gloo,{op},{n},float,sum,{total * 4},{total},{slowest * 1e6:.3f},{algbw:.4f},{bus:.4f},0",
                      flush=True)
        bytes_ *= factor
    dist.destroy_process_group()


def main():
    n, op = int(sys.argv[1]), sys.argv[2]
    lo, hi, factor, warmup, iters = (int(a) for a in sys.argv[3:8])
    if op == "reducescatter":
        return  # not in PyTorch's Gloo backend
    if "RANK" in os.environ:
        n = int(os.environ["WORLD_SIZE"])
        rank_main(int(os.environ["RANK"]), n, int(os.environ["MASTER_PORT"]), op, lo, hi, factor, warmup, iters,
                  os.environ["MASTER_ADDR"])
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    mp.spawn(rank_main, args=(n, port, op, lo, hi, factor, warmup, iters), nprocs=n, join=True)


if __name__ == "__main__":
    main()
