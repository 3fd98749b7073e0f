/*
 * The small-size launch path of NCCL in C, the peer of `GroupBench launch`: N processes (forked, one GPU each),
 * device buffers, for each collective and size: 100 warm-up calls, then ITERS calls launched back to back on
 * one stream (as nccl-tests times them), timing the launches alone and the launches plus the final
 * synchronize; prints both per call, the slowest rank's. NCCL's and CUDA's entry points are declared here so that
 * it builds with gcc alone:
 *   gcc -O2 -o /tmp/launch_bench benchmarks/gpu/launch_bench.c -L/usr/local/cuda/lib64 -l:libnccl.so.2 -lcudart
 *   /tmp/launch_bench 2 2000
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "nccl_bench.h"

enum { FLOAT = NCCL_FLOAT, SUM = NCCL_SUM };
static const char *OPS[] = {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast"};
#define NOPS 5
#define NSIZES 4
static const size_t SIZES[NSIZES] = {64, 512, 4096, 32768};   /* bytes of the largest buffer, nccl-tests' size */

static void launch(int op, void *a, void *b, size_t bytes, int n, ncclComm_t c, cudaStream_t st) {
    size_t count = bytes / 4;
    switch (op) {
        case 0: CHECK(ncclAllReduce(a, b, count, FLOAT, SUM, c, st)); break;
        case 1: CHECK(ncclAllGather(a, b, count / n, FLOAT, c, st)); break;
        case 2: CHECK(ncclReduceScatter(a, b, count / n, FLOAT, SUM, c, st)); break;
        case 3: CHECK(ncclAlltoAll(a, b, count / n, FLOAT, c, st)); break;
        default: CHECK(ncclBroadcast(a, b, count, FLOAT, 0, c, st)); break;
    }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2;
    int iters = argc > 2 ? atoi(argv[2]) : 2000;
    ncclUniqueId id;
    CHECK(ncclGetUniqueId(&id));
    double *t = mmap(NULL, sizeof(double) * n * NOPS * NSIZES * 2, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    for (int r = 0; r < n; r++) {
        if (fork() == 0) {
            ncclComm_t comm;
            cudaStream_t st;
            void *a, *b;
            CHECK(cudaSetDevice(r));
            CHECK(ncclCommInitRank(&comm, n, id, r));
            CHECK(cudaStreamCreate(&st));
            CHECK(cudaMalloc(&a, 1 << 20));
            CHECK(cudaMalloc(&b, 1 << 20));
            for (int op = 0; op < NOPS; op++) {
                for (int s = 0; s < NSIZES; s++) {
                    for (int i = 0; i < 100; i++) {
                        launch(op, a, b, SIZES[s], n, comm, st);
                    }
                    CHECK(cudaStreamSynchronize(st));
                    double t0 = now();
                    for (int i = 0; i < iters; i++) {
                        launch(op, a, b, SIZES[s], n, comm, st);
                    }
                    double t1 = now();
                    CHECK(cudaStreamSynchronize(st));
                    double t2 = now();
                    int k = ((r * NOPS + op) * NSIZES + s) * 2;
                    t[k] = (t1 - t0) / iters;
                    t[k + 1] = (t2 - t0) / iters;
                }
            }
            ncclCommDestroy(comm);
            _exit(0);
        }
    }
    int failed = wait_ranks(n);
    for (int op = 0; op < NOPS; op++) {
        for (int s = 0; s < NSIZES; s++) {
            double launchOnly = 0, total = 0;
            for (int r = 0; r < n; r++) {
                int k = ((r * NOPS + op) * NSIZES + s) * 2;
                launchOnly = t[k] > launchOnly ? t[k] : launchOnly;
                total = t[k + 1] > total ? t[k + 1] : total;
            }
            printf("C %-14s %8zu bytes  launch %6.2f us  per call %6.2f us\n", OPS[op], SIZES[s], launchOnly * 1e6,
                   total * 1e6);
        }
    }
    return failed;
}
