/*
 * The least a one-host collective can take on this machine when every byte crosses between processes by one
 * process_vm_readv (the kernel copy that Open MPI's shared-memory path and jcoll's single copy both make), timed
 * block by block beside Open MPI's own call in the same processes. The "floor" call knows every peer's buffers
 * from the start (no addresses sent per call) and keeps only what no library can skip: the ranks meet (each
 * bumps its counter in memory they share and spins until every peer's has reached it), each reads its blocks from
 * its peers with process_vm_readv and copies its own block with memcpy, and the ranks meet again (a sender's
 * buffer must stay as it is until its readers are done). Ops, on float32 as mpi_bench.c:
 *
 *   allgather   every rank reads each peer's input into the peer's block of its output, copies its own across
 *   alltoall    every rank reads its block of each peer's input, copies its own block across
 *   allgather-write  every rank copies its input into its own block and writes it into its block of each peer's
 *               output with process_vm_writev, WRITE_CHUNK bytes at a time, the copy first (jcoll's two-rank
 *               all-gathers past the last-level cache): each input is read from memory once where reading reads
 *               it twice
 *   alltoall-write   every rank writes each peer's block of its input into the peer's output, copies its own
 *   broadcast   the receivers read rank 0's buffer; "broadcast-out" also has the root copy its input to its
 *               output (jcoll's out-of-place Broadcast), where MPI_Bcast's root has one buffer
 *   broadcast-split  out of place, each rank takes its 1/n of the message: the root copies its part from input to
 *               output, a receiver reads its part of the root's input, and each writes its part, WRITE_CHUNK
 *               bytes at a time just after it got them, into every other rank's output (the root's too): the
 *               root's input is read from memory once, the work shared by every rank
 *   broadcast-share  out of place, the root first writes the first FLOOR_SHARE (a fraction, environment) of the
 *               message into each receiver's output, WRITE_CHUNK bytes at a time, then copies its input to its
 *               output, while the receivers read the rest (jcoll's out-of-place Broadcast with its balancer's share)
 *
 * For each size: WARMUP calls of each, then BLOCKS blocks of CALLS calls, the two systems' order alternated from
 * block to block; a block's time is the slowest rank's mean. Prints, per size, each system's median time per
 * call over the blocks and the median of the blocks' ratios (floor over Open MPI, with the 10th-90th percentile);
 * a ratio near 1 says that Open MPI is at the floor there and that no library using the same copy can be
 * measurably faster. Every element of the floor's output is checked once per size.
 *
 *   mpicc -O2 -o cma_floor cma_floor.c
 *   mpirun --bind-to none -np 2 ./cma_floor OP MIN_BYTES MAX_BYTES FACTOR WARMUP CALLS BLOCKS
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

enum { LINE = 64, WRITE_CHUNK = 256 << 10 };

/* What the floor's ranks share: a counter a rank, each on its own cache line, and every rank's pid and buffers. */
static _Atomic long *counters;
static long *pids, *sends, *recvs;
static int rank, n;
static long calls_made;
static double share_fraction; /* broadcast-share's FLOOR_SHARE */

static _Atomic long *counter(int r) {
    return (_Atomic long *) ((char *) counters + (size_t) r * LINE);
}

/* Bumps this rank's counter and spins until every rank's has reached it. */
static void meet(void) {
    long target = ++calls_made;
    atomic_store_explicit(counter(rank), target, memory_order_release);
    for (int r = 0; r < n; r++) {
        while (atomic_load_explicit(counter(r), memory_order_acquire) < target) {
            __builtin_ia32_pause();
        }
    }
}

static void read_from(int peer, void *dst, long src, size_t bytes) {
    struct iovec local = {dst, bytes}, remote = {(void *) src, bytes};
    ssize_t got = process_vm_readv((pid_t) pids[peer], &local, 1, &remote, 1, 0);
    if (got != (ssize_t) bytes) {
        perror("process_vm_readv");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static void write_to(int peer, long dst, void *src, size_t bytes) {
    struct iovec local = {src, bytes}, remote = {(void *) dst, bytes};
    ssize_t got = process_vm_writev((pid_t) pids[peer], &local, 1, &remote, 1, 0);
    if (got != (ssize_t) bytes) {
        perror("process_vm_writev");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* BYTES from SRC written at OFFSET of every other rank's output, from the next rank on. */
static void write_to_peers(size_t offset, char *src, size_t bytes) {
    for (int k = 1; k < n; k++) {
        int peer = (rank + k) % n;
        write_to(peer, recvs[peer] + offset, src, bytes);
    }
}

/* The length of the WRITE_CHUNK-sized piece from AT of a run that ends at END. */
static size_t chunk_at(size_t at, size_t end) {
    return end - at < WRITE_CHUNK ? end - at : WRITE_CHUNK;
}

/* One floor call of OP on TOTAL floats of the largest buffer. */
static void floor_call(const char *op, float *send, float *recv, long total) {
    size_t block = (size_t) (total / n) * sizeof(float), all = (size_t) total * sizeof(float);
    meet();
    if (strcmp(op, "allgather-write") == 0) {
        for (size_t at = 0; at < block; at += WRITE_CHUNK) {
            size_t len = chunk_at(at, block);
            memcpy((char *) recv + rank * block + at, (char *) send + at, len);
            write_to_peers(rank * block + at, (char *) send + at, len);
        }
    } else if (strcmp(op, "alltoall-write") == 0) {
        for (int k = 1; k < n; k++) {
            int peer = (rank + k) % n;
            write_to(peer, recvs[peer] + rank * block, (char *) send + peer * block, block);
        }
        memcpy((char *) recv + rank * block, (char *) send + rank * block, block);
    } else if (strcmp(op, "allgather") == 0 || strcmp(op, "alltoall") == 0) {
        int gather = op[3] == 'g';
        for (int k = 1; k < n; k++) {
            int peer = (rank + k) % n;
            read_from(peer, (char *) recv + peer * block, sends[peer] + (gather ? 0 : rank * block), block);
        }
        memcpy((char *) recv + rank * block, (char *) send + (gather ? 0 : rank * block), block);
    } else if (strcmp(op, "broadcast-split") == 0) {
        size_t part = (all / n + LINE - 1) / LINE * LINE, from = rank * part;
        size_t to = from + part < all ? from + part : all;
        for (size_t at = from; at < to; at += WRITE_CHUNK) {
            size_t len = chunk_at(at, to);
            if (rank == 0) memcpy((char *) recv + at, (char *) send + at, len);
            else read_from(0, (char *) recv + at, sends[0] + at, len);
            write_to_peers(at, (char *) recv + at, len);
        }
    } else if (strcmp(op, "broadcast-share") == 0) {
        size_t share = (size_t) (all * share_fraction) / LINE * LINE;
        if (rank == 0) {
            for (size_t at = 0; at < share; at += WRITE_CHUNK) {
                write_to_peers(at, (char *) send + at, chunk_at(at, share));
            }
            memcpy(recv, send, all);
        } else {
            read_from(0, (char *) recv + share, sends[0] + share, all - share);
        }
    } else if (rank != 0) {
        read_from(0, recv, strcmp(op, "broadcast") == 0 ? recvs[0] : sends[0], all);
    } else if (strcmp(op, "broadcast-out") == 0) {
        memcpy(recv, send, all);
    }
    meet();
}

static void mpi_call(const char *op, float *send, float *recv, long total) {
    int per_rank = (int) (total / n);
    if (strncmp(op, "allgather", 9) == 0) {
        MPI_Allgather(send, per_rank, MPI_FLOAT, recv, per_rank, MPI_FLOAT, MPI_COMM_WORLD);
    } else if (strncmp(op, "alltoall", 8) == 0) {
        MPI_Alltoall(send, per_rank, MPI_FLOAT, recv, per_rank, MPI_FLOAT, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(recv, (int) total, MPI_FLOAT, 0, MPI_COMM_WORLD);
    }
}

/* Rank r's input element i, and what element i of this rank's output must hold after the floor's call. */
static float input(int r, long i) {
    return (float) (r + i % 7);
}

static float expected(const char *op, long total, long i) {
    long per_rank = total / n;
    if (strncmp(op, "allgather", 9) == 0) return input((int) (i / per_rank), i % per_rank);
    if (strncmp(op, "alltoall", 8) == 0) return input((int) (i / per_rank), rank * per_rank + i % per_rank);
    return input(0, i);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* The p-th fraction of the sorted V of LEN. */
static double at(double *v, int len, double p) {
    qsort(v, len, sizeof *v, by_value);
    return v[(int) (p * (len - 1) + 0.5)];
}

/* The slowest rank's mean time per call of CALLS calls. */
static double timed(int floor, const char *op, float *send, float *recv, long total, int calls) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < calls; i++) {
        if (floor) floor_call(op, send, recv, total); else mpi_call(op, send, recv, total);
    }
    double mean = (MPI_Wtime() - start) / calls, slowest;
    MPI_Allreduce(&mean, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *ops[] = {"allgather", "alltoall", "broadcast", "broadcast-out", "allgather-write", "alltoall-write",
                         "broadcast-split", "broadcast-share"};
    int known = 0;
    for (int i = 0; argc == 8 && i < 8; i++) known |= strcmp(argv[1], ops[i]) == 0;
    if (!known) {
        if (rank == 0) fprintf(stderr, "usage: cma_floor allgather|alltoall|broadcast|broadcast-out|allgather-write|"
                                       "alltoall-write|broadcast-split|broadcast-share MIN_BYTES MAX_BYTES "
                                       "FACTOR WARMUP CALLS BLOCKS\n");
        MPI_Finalize();
        return 2;
    }
    const char *op = argv[1];
    share_fraction = getenv("FLOOR_SHARE") ? atof(getenv("FLOOR_SHARE")) : 0;
    long min = atol(argv[2]), max = atol(argv[3]), factor = atol(argv[4]);
    int warmup = atoi(argv[5]), calls = atoi(argv[6]), blocks = atoi(argv[7]);
    long max_count = max / 4 > n ? max / 4 : n;
    float *send = malloc(max_count * sizeof(float)), *recv = malloc(max_count * sizeof(float));
    for (long i = 0; i < max_count; i++) { /* both written: memory never written is the kernel's one zero page */
        send[i] = input(rank, i);
        recv[i] = (float) (rank + i % 5);
    }
    MPI_Win window; /* the counters, in memory every rank maps */
    MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint) n * LINE : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &counters, &window);
    MPI_Aint length;
    int unit;
    MPI_Win_shared_query(window, 0, &length, &unit, &counters);
    memset((void *) counter(rank), 0, LINE);
    long mine[3] = {(long) getpid(), (long) send, (long) recv}, *every = malloc(3 * n * sizeof(long));
    MPI_Allgather(mine, 3, MPI_LONG, every, 3, MPI_LONG, MPI_COMM_WORLD);
    pids = malloc(n * sizeof(long)), sends = malloc(n * sizeof(long)), recvs = malloc(n * sizeof(long));
    for (int r = 0; r < n; r++) pids[r] = every[3 * r], sends[r] = every[3 * r + 1], recvs[r] = every[3 * r + 2];
    double *floor_times = malloc(blocks * sizeof(double)), *mpi_times = malloc(blocks * sizeof(double));
    double *ratios = malloc(blocks * sizeof(double));
    if (rank == 0) {
        printf("# cma_floor %s, %d ranks, %d blocks of %d calls after %d; times in us\n", op, n, blocks, calls, warmup);
        printf("%10s %10s %10s %8s %16s %6s\n", "bytes", "floor", "openmpi", "ratio", "p10-p90", "wrong");
    }
    for (long bytes = min; bytes <= max; bytes *= factor) {
        long total = bytes / 4;
        if (strncmp(op, "alltoall", 8) == 0 || strncmp(op, "allgather", 9) == 0) total -= total % n;
        if (total < n) continue;
        /* the floor's output checked first: the broadcast root's buffer for "broadcast" holds rank 0's input */
        if (rank == 0 && strcmp(op, "broadcast") == 0) for (long i = 0; i < total; i++) recv[i] = input(0, i);
        MPI_Barrier(MPI_COMM_WORLD);
        for (long i = 0; rank != 0 && i < total; i++) recv[i] = -1;
        floor_call(op, send, recv, total);
        long wrong = 0, wrong_all;
        for (long i = 0; i < total; i++) wrong += recv[i] != expected(op, total, i);
        MPI_Reduce(&wrong, &wrong_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        for (int i = 0; i < warmup; i++) floor_call(op, send, recv, total);
        for (int i = 0; i < warmup; i++) mpi_call(op, send, recv, total);
        for (int b = 0; b < blocks; b++) {
            int floor_first = b % 2 == 0;
            double first = timed(floor_first, op, send, recv, total, calls);
            double second = timed(!floor_first, op, send, recv, total, calls);
            floor_times[b] = floor_first ? first : second;
            mpi_times[b] = floor_first ? second : first;
            ratios[b] = floor_times[b] / mpi_times[b];
        }
        if (rank == 0) {
            double f = at(floor_times, blocks, 0.5), m = at(mpi_times, blocks, 0.5);
            double lo = at(ratios, blocks, 0.1), hi = at(ratios, blocks, 0.9), mid = at(ratios, blocks, 0.5);
            printf("%10ld %10.2f %10.2f %7.2fx %7.2f-%.2fx %6ld\n", total * 4, f * 1e6, m * 1e6, mid, lo, hi, wrong_all);
            fflush(stdout);
        }
    }
    MPI_Win_free(&window);
    MPI_Finalize();
    return 0;
}
