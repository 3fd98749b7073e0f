/*
 * The yardstick for jcoll's reduction kernel (ReductionBenchmark): a C loop of float32 sums, d[i] = a[i] + b[i],
 * over buffers of N elements that the compiler vectorises, and a memcpy of the same bytes; each timed over ITERS
 * calls, three and two times. What a reduction costs where the language leaves nothing in the way.
 *
 *   sum_loop N ITERS
 *
 * Build: cc -O3 -march=native -o sum_loop sum_loop.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* keeps the compiler from dropping work whose result nothing reads */
static void keep(void *p) {
    __asm__ volatile("" : : "r"(p) : "memory");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: sum_loop N ITERS\n");
        return 2;
    }
    int n = atoi(argv[1]), iters = atoi(argv[2]);
    if (n < 1 || iters < 1) {
        fprintf(stderr, "sum_loop: N and ITERS must be positive\n");
        return 2;
    }
    size_t bytes = (size_t) n * sizeof(float);
    float *a = aligned_alloc(4096, bytes + 4096), *b = aligned_alloc(4096, bytes + 4096),
          *d = aligned_alloc(4096, bytes + 4096);
    if (!a || !b || !d) {
        perror("aligned_alloc");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        a[i] = (float) i;
        b[i] = 2.0f * i;
        d[i] = 0;
    }
    for (int r = 0; r < 3; r++) {
        double t0 = now_ns();
        for (int k = 0; k < iters; k++) {
            for (int i = 0; i < n; i++) d[i] = a[i] + b[i];
            keep(d);
        }
        double t = (now_ns() - t0) / iters;
        printf("n=%d sum: %.1f us, %.1f GB/s out\n", n, t / 1e3, bytes / t);
    }
    for (int r = 0; r < 2; r++) {
        double t0 = now_ns();
        for (int k = 0; k < iters; k++) {
            memcpy(d, a, bytes);
            keep(d);
        }
        double t = (now_ns() - t0) / iters;
        printf("n=%d memcpy: %.1f us, %.1f GB/s\n", n, t / 1e3, bytes / t);
    }
    return d[n - 1] == a[n - 1] ? 0 : 1;
}
