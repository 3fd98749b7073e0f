/*
 * nccl-tests' bandwidth measurement in a page of C, for hosts without nccl-tests: one process per GPU, device
 * buffers, for each size WARMUP calls, then ITERS calls launched back to back on one stream and one
 * synchronize; rank 0 prints the time per call and nccl-tests' algorithm and bus bandwidth. Runs forked
 * (`bw_bench allreduce N ...`) or under mpirun, one process each (ranks from OMPI_COMM_WORLD_*; rank 0
 * hands NCCL's unique id to the others through the file $BW_ID_FILE; BW_DEVICE overrides the local rank's GPU),
 * so that it sees mpirun's CPU binding as a jcoll rank does. NCCL's and CUDA's entry points are declared in nccl_bench.h so that it builds with gcc alone:
 *   gcc -O2 -o /tmp/bw_bench benchmarks/gpu/bw_bench.c -L/usr/local/cuda/lib64 -l:libnccl.so.2 -lcudart
 *   /tmp/bw_bench allreduce 2 64M 256M 2 5 20        (op, ranks when forked, min, max, factor, warm-up, iters)
 * ops: allreduce, allgather, reducescatter, alltoall (ncclAlltoAll, NCCL's own since 2.28) and alltoall-p2p (the
 * loop of nccl-tests' alltoall_perf: every rank's block sent and received in one group of ncclSend/ncclRecv)
 */
#include <string.h>
#include <unistd.h>
#include "nccl_bench.h"

enum { FLOAT = NCCL_FLOAT, SUM = NCCL_SUM };

static size_t parse_size(const char *s) {
    char *end;
    size_t v = strtoull(s, &end, 10);
    switch (*end) {
        case 'K': return v << 10;
        case 'M': return v << 20;
        case 'G': return v << 30;
        default: return v;
    }
}

/* nccl-tests' size is the largest buffer: the whole vector for allreduce, n blocks for the others */
static void launch(const char *op, void *a, void *b, size_t bytes, int n, ncclComm_t c, cudaStream_t st) {
    size_t count = bytes / 4;
    if (!strcmp(op, "allreduce")) CHECK(ncclAllReduce(a, b, count, FLOAT, SUM, c, st));
    else if (!strcmp(op, "allgather")) CHECK(ncclAllGather(a, b, count / n, FLOAT, c, st));
    else if (!strcmp(op, "reducescatter")) CHECK(ncclReduceScatter(a, b, count / n, FLOAT, SUM, c, st));
    else if (!strcmp(op, "alltoall")) CHECK(ncclAlltoAll(a, b, count / n, FLOAT, c, st));
    else { /* alltoall-p2p: nccl-tests' alltoall_perf, a send and a receive of each rank's block in one group */
        size_t block = count / n;
        CHECK(ncclGroupStart());
        for (int r = 0; r < n; r++) {
            CHECK(ncclSend((const char *) a + r * block * 4, block, FLOAT, r, c, st));
            CHECK(ncclRecv((char *) b + r * block * 4, block, FLOAT, r, c, st));
        }
        CHECK(ncclGroupEnd());
    }
}

static double bus_factor(const char *op, int n) {
    return !strcmp(op, "allreduce") ? 2.0 * (n - 1) / n : (double) (n - 1) / n;
}

static void run(int rank, int n, int device, ncclUniqueId id, char **argv) {
    const char *op = argv[1];
    size_t min = parse_size(argv[3]), max = parse_size(argv[4]);
    int factor = atoi(argv[5]), warmup = atoi(argv[6]), iters = atoi(argv[7]);
    ncclComm_t comm;
    cudaStream_t st;
    void *a, *b;
    CHECK(cudaSetDevice(device));
    CHECK(ncclCommInitRank(&comm, n, id, rank));
    CHECK(cudaStreamCreate(&st));
    CHECK(cudaMalloc(&a, max));
    CHECK(cudaMalloc(&b, max));
    CHECK(cudaMemset(a, 0, max));
    if (rank == 0) printf("C %s, %d ranks: bytes, us per call, algbw GB/s, busbw GB/s\n", op, n);
    for (size_t bytes = min; bytes <= max; bytes *= factor) {
        for (int i = 0; i < warmup; i++) launch(op, a, b, bytes, n, comm, st);
        CHECK(cudaStreamSynchronize(st));
        double t0 = now();
        for (int i = 0; i < iters; i++) launch(op, a, b, bytes, n, comm, st);
        CHECK(cudaStreamSynchronize(st));
        double per = (now() - t0) / iters;
        if (rank == 0) printf("C %-13s %12zu %10.1f %8.2f %8.2f\n", op, bytes, per * 1e6, bytes / per / 1e9,
                              bytes / per / 1e9 * bus_factor(op, n));
        fflush(stdout);
    }
    ncclCommDestroy(comm);
}

int main(int argc, char **argv) {
    if (argc < 8) {
        fprintf(stderr, "usage: bw_bench op ranks min max factor warmup iters\n");
        return 2;
    }
    ncclUniqueId id;
    const char *mpiRank = getenv("OMPI_COMM_WORLD_RANK");
    if (mpiRank) {
        int rank = atoi(mpiRank), n = atoi(getenv("OMPI_COMM_WORLD_SIZE"));
        const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
        const char *file = getenv("BW_ID_FILE") ? getenv("BW_ID_FILE") : "/tmp/bw_bench.id";
        if (rank == 0) {
            char tmp[4096];
            snprintf(tmp, sizeof tmp, "%s.tmp", file);
            CHECK(ncclGetUniqueId(&id));
            FILE *f = fopen(tmp, "wb");
            fwrite(&id, sizeof id, 1, f);
            fclose(f);
            rename(tmp, file); /* whole or absent: the others never read half an id */
        } else {
            FILE *f;
            while ((f = fopen(file, "rb")) == NULL) usleep(10000);
            if (fread(&id, sizeof id, 1, f) != 1) { fprintf(stderr, "short id file\n"); return 1; }
            fclose(f);
        }
        const char *device = getenv("BW_DEVICE"); /* one GPU shared by ranks that NCCL_HOSTID sets apart */
        run(rank, n, device ? atoi(device) : local ? atoi(local) : rank, id, argv);
        return 0;
    }
    int n = atoi(argv[2]);
    CHECK(ncclGetUniqueId(&id));
    for (int r = 0; r < n; r++) {
        if (fork() == 0) {
            run(r, n, r, id, argv);
            _exit(0);
        }
    }
    int failed = wait_ranks(n);
    return failed;
}
