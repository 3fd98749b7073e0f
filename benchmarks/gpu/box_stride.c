/*
 * A root streaming 8-byte messages to one receiver through a ring of BOXES boxes, each box's header line (sequence
 * word and payload) STRIDE bytes after the last: the shape of jcoll's 2-rank small Broadcast over shared memory
 * (boxes 4160 bytes apart) against one whose headers lie in consecutive cache lines (64 bytes apart), where the
 * hardware's prefetchers can bring the next box in while this one is read, as Open MPI's fast boxes allow. The
 * receiver says how far it has read every BATCH messages (the root's room), as jcoll's receiver does through its
 * own boxes. Two threads pinned to CPUs A and B; prints nanoseconds a message, the mean of ITERS after WARM.
 *
 *   cc -O2 -pthread -o box_stride box_stride.c && ./box_stride STRIDE [A B] [ITERS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BOXES 8
#define BATCH 4
#define WARM 1000000L

static size_t stride;
static long iters;
static int cpus[2];
static unsigned char *ring;
static _Alignas(64) _Atomic long done;   /* messages the receiver has read, published every BATCH */
static _Alignas(64) long sink;

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static _Atomic long *seq_of(long m) { return (_Atomic long *) (ring + (size_t) ((m - 1) % BOXES) * stride); }
static long *payload_of(long m) { return (long *) (ring + (size_t) ((m - 1) % BOXES) * stride + 8); }

static void *root(void *arg) {
    (void) arg;
    pin(cpus[0]);
    for (long m = 1; m <= WARM + iters; m++) {
        while (m - atomic_load_explicit(&done, memory_order_acquire) > BOXES - 1) {
            __builtin_ia32_pause();
        }
        *payload_of(m) = m * 3;
        atomic_store_explicit(seq_of(m), m, memory_order_release);
    }
    return NULL;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    stride = argc > 1 ? strtoul(argv[1], NULL, 10) : 4160;
    cpus[0] = argc > 3 ? atoi(argv[2]) : 0;
    cpus[1] = argc > 3 ? atoi(argv[3]) : 1;
    iters = argc > 4 ? atol(argv[4]) : 10000000L;
    ring = aligned_alloc(4096, BOXES * stride + 4096);
    memset(ring, 0, BOXES * stride + 4096);
    pin(cpus[1]);
    pthread_t t;
    pthread_create(&t, NULL, root, NULL);
    double start = 0;
    for (long m = 1; m <= WARM + iters; m++) {
        if (m == WARM + 1) {
            start = now();
        }
        while (atomic_load_explicit(seq_of(m), memory_order_acquire) < m) {
            __builtin_ia32_pause();
        }
        sink += *payload_of(m);
        if (m % BATCH == 0) {
            atomic_store_explicit(&done, m, memory_order_release);
        }
    }
    double ns = (now() - start) * 1e9 / iters;
    pthread_join(t, NULL);
    printf("stride %zu cpus %d,%d: %.1f ns a message (check %ld)\n", stride, cpus[0], cpus[1], ns, sink % 7);
    return 0;
}
