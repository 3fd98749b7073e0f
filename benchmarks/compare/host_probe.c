// The host's own state, with no library in the way: two processes pinned to two CPUs bounce one cache line back
// and forth (a round trip between the cores) and hand a 256 KB buffer over (one writes it, the other copies it
// out), for a given time. On the 2-vCPU development VM both move by 3-4x for seconds to minutes at a time
// (round trip 130 against 450 ns, hand-off 7.4 against 1.6-2.0 GB/s) while nothing else runs: a state of the
// host under the VM that every program on it sees. benchmarks/compare/ab.sh --probe runs this around each
// system's run, so that a round taken in such a spell can be told from one that was not.
//
//   cc -O2 -o host_probe host_probe.c && ./host_probe [SECONDS=1] [BYTES=262144] [CPU_A CPU_B]
//
// Prints one line: "host-probe: round trip N ns, hand-off G GB/s (CPUs A and B, S s, BYTES B)", the medians of its
// tenth-of-a-second windows. BYTES is the hand-off's size; without CPUs named it takes the first two this process
// may run on.
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WINDOW_SECONDS 0.1
#define MAX_WINDOWS 100000

typedef struct {
    _Alignas(64) atomic_long ping;  // the parent's step: even a bare round trip, odd a hand-off; -1 to stop
    _Alignas(64) atomic_long pong;  // the child's answer: the step it finished
} shared_t;

static size_t hand_off_bytes = 256 * 1024;
static char *buffer;                // shared, hand_off_bytes long

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void answer(shared_t *sh, int cpu) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent
    if (pin(cpu) != 0) {
        perror("host-probe: sched_setaffinity");
        _exit(1);
    }
    char *out = aligned_alloc(4096, hand_off_bytes);
    long expect = 1;
    for (;;) {
        long step;
        while ((step = atomic_load_explicit(&sh->ping, memory_order_acquire)) < expect && step >= 0) {
            __builtin_ia32_pause();
        }
        if (step < 0) {
            _exit(0);
        }
        if (step & 1) {
            memcpy(out, buffer, hand_off_bytes);
        }
        atomic_store_explicit(&sh->pong, step, memory_order_release);
        expect = step + 1;
    }
}

/** One step: returns its seconds, from the parent's signal to the child's answer. */
static double step(shared_t *sh, long number, const char *source) {
    double start = now();
    if (number & 1) {
        memcpy(buffer, source, hand_off_bytes);
    }
    atomic_store_explicit(&sh->ping, number, memory_order_release);
    while (atomic_load_explicit(&sh->pong, memory_order_acquire) < number) {
        __builtin_ia32_pause();
    }
    return now() - start;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1;
    if (argc > 2) {
        hand_off_bytes = (size_t) atol(argv[2]) / 4096 * 4096;
    }
    int cpus[2] = {-1, -1};
    if (argc > 4) {
        cpus[0] = atoi(argv[3]);
        cpus[1] = atoi(argv[4]);
    } else {
        cpu_set_t mine;
        sched_getaffinity(0, sizeof mine, &mine);
        for (int c = 0, found = 0; c < CPU_SETSIZE && found < 2; c++) {
            if (CPU_ISSET(c, &mine)) {
                cpus[found++] = c;
            }
        }
    }
    if (seconds <= 0 || hand_off_bytes == 0 || cpus[0] < 0 || cpus[1] < 0 || cpus[0] == cpus[1]) {
        fprintf(stderr, "host-probe: needs a positive time, a hand-off of 4096 bytes or more and two distinct CPUs\n");
        return 2;
    }
    shared_t *sh = mmap(NULL, sizeof(shared_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    buffer = mmap(NULL, hand_off_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *source = aligned_alloc(4096, hand_off_bytes);
    if (sh == MAP_FAILED || buffer == MAP_FAILED || source == NULL) {
        perror("host-probe: memory");
        return 1;
    }
    memset(source, 1, hand_off_bytes);
    memset(buffer, 0, hand_off_bytes);
    pid_t child = fork();
    if (child == 0) {
        answer(sh, cpus[1]);
    }
    if (child < 0 || pin(cpus[0]) != 0) {
        perror("host-probe: fork or sched_setaffinity");
        return 1;
    }
    int windows = 0;
    double *trips = malloc(sizeof(double) * MAX_WINDOWS), *rates = malloc(sizeof(double) * MAX_WINDOWS);
    long number = 0;
    double end = now() + seconds;
    while (now() < end && windows < MAX_WINDOWS) {
        double window_end = now() + WINDOW_SECONDS, trip = 0, handed = 0;
        long n = 0;
        while (now() < window_end) {
            number += (number & 1) ? 1 : 2;  // the next even step: a bare round trip
            trip += step(sh, number, source);
            number += 1;                     // then a hand-off
            handed += step(sh, number, source);
            n++;
        }
        trips[windows] = trip / n * 1e9;
        rates[windows] = (double) hand_off_bytes * n / handed / 1e9;
        windows++;
    }
    atomic_store_explicit(&sh->ping, -1, memory_order_release);
    waitpid(child, NULL, 0);
    printf("host-probe: round trip %.0f ns, hand-off %.2f GB/s (CPUs %d and %d, %.1f s, %zu B)\n",
           median(trips, windows), median(rates, windows), cpus[0], cpus[1], seconds, hand_off_bytes);
    return 0;
}
