/*
 * What the C peers of jcoll's GPU benchmarks share (bw_bench.c, launch_bench.c, split_bench.c): NCCL's and
 * CUDA's entry points declared here, so that each builds with gcc alone against the host's libnccl.so.2 and
 * libcudart (no CUDA or NCCL headers on the GPU host), a clock, a return-code check, and the wait for forked ranks.
 */
#ifndef JCOLL_NCCL_BENCH_H
#define JCOLL_NCCL_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

typedef struct { char internal[128]; } ncclUniqueId;
typedef void *ncclComm_t;
typedef void *cudaStream_t;
int ncclGetUniqueId(ncclUniqueId *id);
int ncclCommInitRank(ncclComm_t *comm, int n, ncclUniqueId id, int rank);
int ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *out, void *config);
int ncclAllReduce(const void *s, void *r, size_t count, int type, int op, ncclComm_t c, cudaStream_t st);
int ncclAllGather(const void *s, void *r, size_t count, int type, ncclComm_t c, cudaStream_t st);
int ncclReduceScatter(const void *s, void *r, size_t count, int type, int op, ncclComm_t c, cudaStream_t st);
int ncclBroadcast(const void *s, void *r, size_t count, int type, int root, ncclComm_t c, cudaStream_t st);
int ncclAlltoAll(const void *s, void *r, size_t count, int type, ncclComm_t c, cudaStream_t st);
int ncclSend(const void *s, size_t count, int type, int peer, ncclComm_t c, cudaStream_t st);
int ncclRecv(void *r, size_t count, int type, int peer, ncclComm_t c, cudaStream_t st);
int ncclGroupStart(void);
int ncclGroupEnd(void);
int ncclCommDestroy(ncclComm_t comm);
int cudaSetDevice(int device);
int cudaMalloc(void **p, size_t bytes);
int cudaMemset(void *p, int value, size_t bytes);
int cudaStreamCreate(cudaStream_t *s);
int cudaStreamSynchronize(cudaStream_t s);

enum { NCCL_FLOAT = 7, NCCL_SUM = 0 };

#define CHECK(call) do { int rc = (call); if (rc != 0) { fprintf(stderr, "%s failed: %d\n", #call, rc); exit(1); } } while (0)

static inline double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Waits for n forked ranks; non-zero when any failed. */
static inline int wait_ranks(int n) {
    int failed = 0;
    for (int r = 0; r < n; r++) {
        int status;
        wait(&status);
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    return failed;
}

#endif
