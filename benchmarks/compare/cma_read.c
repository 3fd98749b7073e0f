/*
 * What one process_vm_readv (cross-memory attach, the copy Open MPI's shared-memory path and jcoll's single copy
 * make) costs on this machine, against a memcpy of the same size: a parent fills BYTES of memory, a child reads
 * them with process_vm_readv in CHUNK-byte calls, ITERS times after 10 untimed; PIN=1 binds the parent to CPU 0 and
 * the child to CPU 1. Then memcpy of BYTES between two written buffers in one process. Prints the mean per pass.
 *
 *   cc -O2 -o cma_read cma_read.c && ./cma_read BYTES CHUNK ITERS PIN
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void bind_to(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

/* One pass: every byte of src, read from process PID in CHUNK-byte calls. */
static int read_all(pid_t pid, char *dst, char *src, size_t n, size_t chunk) {
    for (size_t at = 0; at < n; at += chunk) {
        size_t len = n - at < chunk ? n - at : chunk;
        struct iovec local = {dst + at, len}, remote = {src + at, len};
        if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t) len) return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: cma_read BYTES CHUNK ITERS PIN\n");
        return 2;
    }
    size_t n = atol(argv[1]), chunk = atol(argv[2]);
    int iters = atoi(argv[3]), pin = atoi(argv[4]);
    if (pin) bind_to(0);
    char *src = malloc(n);
    memset(src, 1, n); /* written: never the kernel's zero page */
    pid_t parent = getpid(), child = fork();
    if (child == 0) {
        if (pin) bind_to(1);
        char *dst = malloc(n);
        memset(dst, 0, n);
        for (int i = 0; i < 10; i++) read_all(parent, dst, src, n, chunk);
        double start = now();
        for (int i = 0; i < iters; i++) {
            if (read_all(parent, dst, src, n, chunk) != 0) {
                perror("process_vm_readv");
                return 1;
            }
        }
        double t = (now() - start) / iters;
        printf("process_vm_readv %zu bytes in %zu-byte calls, pin %d: %.1f us, %.2f GB/s\n", n, chunk, pin, t * 1e6,
               n / t / 1e9);
        return 0;
    }
    int status;
    while (waitpid(child, &status, WNOHANG) == 0) {
        /* the parent spins, as a waiting rank does */
    }
    char *dst = malloc(n);
    memset(dst, 2, n);
    for (int i = 0; i < 10; i++) memcpy(dst, src, n);
    double start = now();
    for (int i = 0; i < iters; i++) {
        memcpy(dst, src, n);
        src[i % n] = dst[(i + 1) % n];
    }
    double t = (now() - start) / iters;
    printf("memcpy %zu bytes: %.1f us, %.2f GB/s\n", n, t * 1e6, n / t / 1e9);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
