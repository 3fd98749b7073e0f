/*
 * ncclCommSplit in C, the peer of `GroupBench split`: N processes (forked, one GPU each) form a communicator,
 * then split it (one color, key = rank) and destroy the result ITERS times; prints the time per split +
 * destroy on the slowest rank. NCCL's and CUDA's entry points are declared in nccl_bench.h, so that it builds with gcc
 * alone against the host's libnccl.so.2 and libcudart:
 *   gcc -O2 -o /tmp/split_bench benchmarks/gpu/split_bench.c -L/usr/local/cuda/lib64 -l:libnccl.so.2 -lcudart
 *   /tmp/split_bench 2 20
 */
#include <sys/mman.h>
#include <unistd.h>
#include "nccl_bench.h"

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2;
    int iters = argc > 2 ? atoi(argv[2]) : 20;
    ncclUniqueId id;
    CHECK(ncclGetUniqueId(&id));
    double *seconds = mmap(NULL, sizeof(double) * n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    for (int r = 0; r < n; r++) {
        if (fork() == 0) {
            ncclComm_t comm, sub;
            CHECK(cudaSetDevice(r));
            CHECK(ncclCommInitRank(&comm, n, id, r));
            for (int i = 0; i < 3; i++) {
                CHECK(ncclCommSplit(comm, 0, r, &sub, NULL));
                CHECK(ncclCommDestroy(sub));
            }
            double t0 = now();
            for (int i = 0; i < iters; i++) {
                CHECK(ncclCommSplit(comm, 0, r, &sub, NULL));
                CHECK(ncclCommDestroy(sub));
            }
            seconds[r] = (now() - t0) / iters;
            ncclCommDestroy(comm);
            _exit(0);
        }
    }
    int failed = wait_ranks(n);
    double worst = 0;
    for (int r = 0; r < n; r++) {
        worst = seconds[r] > worst ? seconds[r] : worst;
    }
    printf("ncclCommSplit+ncclCommDestroy %d ranks in C: %.1f us per split (slowest rank, %d splits)\n", n,
           worst * 1e6, iters);
    return failed;
}
