// Two processes hand a two-rank AllGather's halves to each other through ring slots in shared memory, in lock
// step, as HandOff.java does, with the copies into the slots (copy in) and out of them (copy out, the own chunk
// and the peer's) each made one of several ways: glibc's memcpy (`rep movsb` at these sizes on the development
// VM), `rep movsb` itself, loops of 8, 32 or 64 bytes (`avx512`: as HotSpot's arraycopy stub copies where its
// vectors are 64 bytes) or non-temporal stores.
//   cc -O2 -mavx2 -o /tmp/copy_in copy_in.c
//   /tmp/copy_in IN [OUT] [BYTES] [ITERATIONS]     IN, OUT: memcpy|movsb|loop8|avx2|avx512|stream (OUT: memcpy)
// 4 MB a rank through 8 slots of 64 KB by default; the two processes are pinned to CPUs 0 and 1.
#define _GNU_SOURCE
#include <immintrin.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { SLOT = 65536, SLOTS = 8 };

typedef struct {  // one rank's counters, each on its own line
    _Alignas(64) atomic_long produced;
    _Alignas(64) atomic_long consumed;
    _Alignas(64) atomic_long begun;
} side_t;

__attribute__((target("avx512f"))) static void copy_avx512(char *d, const char *s, long n) {
    for (long i = 0; i < n; i += 64) _mm512_storeu_si512(d + i, _mm512_loadu_si512(s + i));
}

static void copy(const char *how, char *d, const char *s, long n) {
    if (!strcmp(how, "memcpy")) {
        memcpy(d, s, n);
    } else if (!strcmp(how, "movsb")) {
        __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    } else if (!strcmp(how, "loop8")) {
        for (long i = 0; i < n; i += 8) *(long *) (d + i) = *(const long *) (s + i);
    } else if (!strcmp(how, "avx2")) {
        for (long i = 0; i < n; i += 32)
            _mm256_storeu_si256((__m256i *) (d + i), _mm256_loadu_si256((const __m256i *) (s + i)));
    } else if (!strcmp(how, "avx512")) {  // HotSpot's stub where MaxVectorSize is 64
        copy_avx512(d, s, n);
    } else {  // stream: non-temporal stores
        for (long i = 0; i < n; i += 32)
            _mm256_stream_si256((__m256i *) (d + i), _mm256_loadu_si256((const __m256i *) (s + i)));
        _mm_sfence();
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    const char *in = argc > 1 ? argv[1] : "memcpy", *out = argc > 2 ? argv[2] : "memcpy";
    long bytes = argc > 3 ? atol(argv[3]) : 4194304;
    int iterations = argc > 4 ? atoi(argv[4]) : 1000;
    side_t *sides = mmap(0, 2 * sizeof(side_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *slots = mmap(0, 2L * SLOTS * SLOT, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    memset(slots, 0, 2L * SLOTS * SLOT);
    int me = fork() == 0 ? 1 : 0, peer = 1 - me;
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(me, &cpus);
    sched_setaffinity(0, sizeof cpus, &cpus);
    side_t *mine = &sides[me], *theirs = &sides[peer];
    // buffers at page offset 16, as paired.sh and HandOff.java place them
    char *input = (char *) aligned_alloc(4096, bytes + 4096) + 16, *output = (char *) aligned_alloc(4096, 2 * bytes + 4096) + 16;
    memset(input, me + 1, bytes);
    memset(output, 0, 2 * bytes);
    char *my_slots = slots + (long) me * SLOTS * SLOT, *peer_slots = slots + (long) peer * SLOTS * SLOT;
    long chunks = (bytes + SLOT - 1) / SLOT, base = 0;
    double best = 1e9, sum = 0;
    for (int it = 0; it < iterations; it++) {
        atomic_store(&mine->begun, it + 1);
        while (atomic_load(&theirs->begun) < it + 1) _mm_pause();
        double start = now();
        for (long k = 0; k < chunks; k++) {
            long n = bytes - k * SLOT < SLOT ? bytes - k * SLOT : SLOT, slot = (base + k) % SLOTS * SLOT;
            while (atomic_load_explicit(&theirs->consumed, memory_order_acquire) < base + k - SLOTS + 1) _mm_pause();
            copy(in, my_slots + slot, input + k * SLOT, n);
            atomic_store_explicit(&mine->produced, base + k + 1, memory_order_release);
            copy(out, output + me * bytes + k * SLOT, my_slots + slot, n);
            while (atomic_load_explicit(&theirs->produced, memory_order_acquire) < base + k + 1) _mm_pause();
            copy(out, output + peer * bytes + k * SLOT, peer_slots + slot, n);
            atomic_store_explicit(&mine->consumed, base + k + 1, memory_order_release);
        }
        base += chunks;
        double took = now() - start;
        if (it >= iterations / 5) {
            sum += took;
            if (took < best) best = took;
        }
    }
    for (long i = 0; i < 2 * bytes; i += 4093) {
        if (output[i] != (i < bytes ? 1 : 2)) { printf("wrong byte at %ld\n", i); return 1; }
    }
    if (me == 1) return 0;
    wait(0);
    printf("in %-6s out %-6s %ld B, %d B slots x %d: mean %.1f us, best %.1f us\n", in, out, bytes, SLOT, SLOTS,
           sum / (iterations - iterations / 5) * 1e6, best * 1e6);
    return 0;
}
