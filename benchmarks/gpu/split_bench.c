/*
 * ncclCommSplit in C, the peer of `GroupBench split`: N processes (forked, one GPU each) form a communicator,
 * then split it (one color, key = rank) and destroy the result ITERS times; prints the time per split +
 * destroy on the slowest rank. NCCL's and CUDA's entry points are declared here, so that it builds with gcc
 * alone against the host's libnccl.so.2 and libcudart:
 *   gcc -O2 -o /tmp/split_bench benchmarks/gpu/split_bench.c -L/usr/local/cuda/lib64 -l:libnccl.so.2 -lcudart
 *   /tmp/split_bench 2 20
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct { char internal[128]; } ncclUniqueId;
typedef void *ncclComm_t;
int ncclGetUniqueId(ncclUniqueId *id);
int ncclCommInitRank(ncclComm_t *comm, int n, ncclUniqueId id, int rank);
int ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *out, void *config);
int ncclCommDestroy(ncclComm_t comm);
int cudaSetDevice(int device);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

#define CHECK(call) do { int rc = (call); if (rc != 0) { fprintf(stderr, "%s failed: %d\n", #call, rc); exit(1); } } while (0)

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
    int failed = 0;
    for (int r = 0; r < n; r++) {
        int status;
        wait(&status);
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    double worst = 0;
    for (int r = 0; r < n; r++) {
        worst = seconds[r] > worst ? seconds[r] : worst;
    }
    printf("ncclCommSplit+ncclCommDestroy %d ranks in C: %.1f us per split (slowest rank, %d splits)\n", n,
           worst * 1e6, iters);
    return failed;
}
