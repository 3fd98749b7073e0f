/*
 * The Open MPI side of benchmarks/compare: MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block,
 * MPI_Alltoall and MPI_Bcast on float32, timed by the rule jcoll perf and gloo_bench.py use: a barrier, WARMUP
 * untimed calls, a barrier, ITERS timed calls; each rank's mean per call, and the slowest rank's mean is the
 * figure. Sizes follow nccl-tests: BYTES is the largest buffer of the call. Prints the CSV columns jcoll perf
 * writes (system,op,ranks,type,redop,bytes,count,time_us,algbw_gbs,busbw_gbs,wrong).
 *
 *   mpicc -O2 -o mpi_bench mpi_bench.c
 *   mpirun -np 4 --mca btl tcp,self ./mpi_bench allreduce MIN_BYTES MAX_BYTES FACTOR WARMUP ITERS
 *
 * MPI_BENCH_THREADS=multiple initialises MPI with MPI_THREAD_MULTIPLE, the level whose guarantee a jcoll
 * communicator gives (calls from any thread): Open MPI then takes its locks on every call, as jcoll does. Without
 * it MPI runs at MPI_THREAD_SINGLE, where it takes none.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double bus_factor(const char *op, int n) {
    if (strcmp(op, "allreduce") == 0) return 2.0 * (n - 1) / n;
    if (strcmp(op, "broadcast") == 0) return 1.0;
    return (double) (n - 1) / n;
}

/* One call of OP on COUNT floats of the largest buffer; a negative return means an unknown op. */
static int run(const char *op, float *send, float *recv, long total, int n) {
    long per_rank = total / n;
    if (strcmp(op, "allreduce") == 0) return MPI_Allreduce(send, recv, (int) total, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (strcmp(op, "allgather") == 0)
        return MPI_Allgather(send, (int) per_rank, MPI_FLOAT, recv, (int) per_rank, MPI_FLOAT, MPI_COMM_WORLD);
    if (strcmp(op, "reducescatter") == 0)
        return MPI_Reduce_scatter_block(send, recv, (int) per_rank, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (strcmp(op, "alltoall") == 0)
        return MPI_Alltoall(send, (int) per_rank, MPI_FLOAT, recv, (int) per_rank, MPI_FLOAT, MPI_COMM_WORLD);
    if (strcmp(op, "broadcast") == 0) return MPI_Bcast(recv, (int) total, MPI_FLOAT, 0, MPI_COMM_WORLD);
    return -1;
}

int main(int argc, char **argv) {
    const char *threads = getenv("MPI_BENCH_THREADS");
    int multiple = threads != NULL && strcmp(threads, "multiple") == 0, provided = MPI_THREAD_SINGLE;
    if (multiple) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 7) {
        if (rank == 0) fprintf(stderr, "usage: mpi_bench OP MIN_BYTES MAX_BYTES FACTOR WARMUP ITERS\n");
        MPI_Finalize();
        return 2;
    }
    if (multiple && provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0) fprintf(stderr, "mpi_bench: MPI_THREAD_MULTIPLE asked for, %d provided\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *op = argv[1];
    long min = atol(argv[2]), max = atol(argv[3]), factor = atol(argv[4]);
    int warmup = atoi(argv[5]), iters = atoi(argv[6]);
    long max_count = max / 4 > n ? max / 4 : n;
    float *send = malloc(max_count * sizeof(float)), *recv = malloc(max_count * sizeof(float));
    /* Both buffers hold data: MPI_Bcast's root reads recv, and memory never written is the kernel's one zero page,
     * which a peer reading it (cross-memory attach) or the root copying it would find in cache at every size. */
    for (long i = 0; i < max_count; i++) {
        send[i] = (float) (rank + i % 7);
        recv[i] = (float) (rank + i % 5);
    }
    for (long bytes = min; bytes <= max; bytes *= factor) {
        long total = bytes / 4;
        if (strcmp(op, "allreduce") != 0 && strcmp(op, "broadcast") != 0) total -= total % n;
        if (total < (strcmp(op, "allreduce") == 0 || strcmp(op, "broadcast") == 0 ? 1 : n)) continue;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warmup; i++) run(op, send, recv, total, n);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (run(op, send, recv, total, n) < 0) {
                if (rank == 0) fprintf(stderr, "mpi_bench: unknown op %s\n", op);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        double mean = (MPI_Wtime() - start) / iters, slowest;
        MPI_Allreduce(&mean, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0) {
            double algbw = total * 4.0 / slowest / 1e9;
            printf("openmpi-tcp,%s,%d,float,sum,%ld,%ld,%.3f,%.4f,%.4f,0\n", op, n, total * 4, total, slowest * 1e6,
                   algbw, algbw * bus_factor(op, n));
            fflush(stdout);
        }
    }
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
