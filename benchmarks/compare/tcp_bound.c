/*
 * What loopback TCP itself allows on this machine, with no collective library in the way: the floor
 * under jcoll's and Open MPI's TCP times. Two processes (fork), one connection, each a single thread
 * that polls non-blocking sockets without sleeping, as both libraries do:
 *
 *   stream   BYTES go one way (a 2-rank Broadcast moves exactly this), then a 1-byte reply;
 *   exchange both send BYTES and receive BYTES at once (a 2-rank ring step: AllReduce is two of them
 *            with half the message each, plus a reduction; AllGather and All-to-All one).
 *   ring     RANKS processes in a ring, CHANNELS connections from each to the next and a thread per
 *            connection (as jcoll's channels): every round, each thread sends BYTES / CHANNELS to the next
 *            rank and receives as much from the previous one. The ring's steps on a host with this many
 *            cores, without their arithmetic: a ring collective's bus bandwidth (nccl-tests' definition) is
 *            the bytes a rank sends per second, so the rate printed here is the most any ring over loopback
 *            TCP can reach with these ranks and channels.
 *
 *   tcp_bound stream|exchange BYTES WARMUP ITERS
 *   tcp_bound ring RANKS CHANNELS BYTES WARMUP ITERS
 *
 * TCP_BOUND_YIELD=1 makes a thread that moved nothing yield its core (for more threads than cores).
 * TCP_BOUND_OFFSET=N puts every buffer N bytes past a page boundary: where the kernel's copies of a stream's bytes
 * run fast depends on it (see the TCP transport's PayloadPlacement).
 * Prints the mean time of ITERS rounds after WARMUP (ring: the slowest rank's), and the bytes per second each
 * way (ring: per rank).
 * Build: cc -O2 -pthread -o tcp_bound tcp_bound.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static void die(const char *what) {
    perror(what);
    exit(1);
}

/* TCP_BOUND_YIELD=1: a thread that moved nothing yields its core (jcoll does where ranks outnumber cores) */
static int yield_idle;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/*
 * Sends `out` bytes on `wfd` and receives `in` bytes on `rfd`, whichever socket takes them first, until both
 * are done.
 */
static void move2(int wfd, const char *src, size_t out, int rfd, char *dst, size_t in) {
    size_t sent = 0, got = 0;
    while (sent < out || got < in) {
        int moved = 0;
        if (sent < out) {
            ssize_t n = write(wfd, src + sent, out - sent);
            if (n > 0) sent += (size_t) n, moved = 1;
            else if (n < 0 && errno != EAGAIN) die("write");
        }
        if (got < in) {
            ssize_t n = read(rfd, dst + got, in - got);
            if (n > 0) got += (size_t) n, moved = 1;
            else if (n == 0) { fprintf(stderr, "peer closed\n"); exit(1); }
            else if (errno != EAGAIN) die("read");
        }
        if (!moved && yield_idle) sched_yield(); /* more threads than cores: let the one this waits on run */
    }
}

static void move(int fd, const char *src, size_t out, char *dst, size_t in) {
    move2(fd, src, out, fd, dst, in);
}

/* TCP_BOUND_OFFSET=N: every buffer starts N bytes past a page boundary (default: where malloc puts it) */
static long page_offset = -1;

/* A buffer of `bytes` filled with `fill`: touched before any clock starts, so first-touch page faults are not the
   network's */
static char *touched(size_t bytes, int fill) {
    char *b;
    if (page_offset >= 0) {
        b = aligned_alloc(4096, (bytes + page_offset + 4095) / 4096 * 4096 + 4096);
        if (b) b += page_offset;
    } else {
        b = malloc(bytes ? bytes : 1);
    }
    if (!b) die("malloc");
    memset(b, fill, bytes);
    return b;
}

static void tune(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

struct lane {          /* one channel of one rank: its connection to the next rank and from the previous */
    int out, in;
    size_t bytes;
    int warmup, iters;
    double us;         /* mean per round, set by the thread */
};

static void *lane_run(void *arg) {
    struct lane *l = arg;
    char *src = touched(l->bytes, 1), *dst = touched(l->bytes, 0);
    for (int r = 0; r < l->warmup; r++) move2(l->out, src, l->bytes, l->in, dst, l->bytes);
    double start = now_us();
    for (int r = 0; r < l->iters; r++) move2(l->out, src, l->bytes, l->in, dst, l->bytes);
    l->us = (now_us() - start) / l->iters;
    if (page_offset < 0) { /* offset buffers are not where their allocation starts */
        free(src);
        free(dst);
    }
    return NULL;
}

/* One rank of the ring: connects to the next rank's listener, accepts the previous rank's connections. */
static double ring_rank(int rank, int ranks, int channels, int *listeners, struct sockaddr_in *addrs,
                        size_t bytes, int warmup, int iters) {
    struct lane lanes[channels];
    pthread_t threads[channels];
    for (int c = 0; c < channels; c++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in *next = &addrs[(rank + 1) % ranks];
        if (fd < 0 || connect(fd, (struct sockaddr *) next, sizeof *next)) die("connect");
        lanes[c].out = fd;
    }
    for (int c = 0; c < channels; c++) {
        lanes[c].in = accept(listeners[rank], NULL, NULL);
        if (lanes[c].in < 0) die("accept");
    }
    for (int c = 0; c < channels; c++) {
        tune(lanes[c].out);
        tune(lanes[c].in);
        lanes[c].bytes = bytes / channels;
        lanes[c].warmup = warmup;
        lanes[c].iters = iters;
        if (pthread_create(&threads[c], NULL, lane_run, &lanes[c])) die("pthread_create");
    }
    double slowest = 0;
    for (int c = 0; c < channels; c++) {
        pthread_join(threads[c], NULL);
        if (lanes[c].us > slowest) slowest = lanes[c].us;
        close(lanes[c].out);
        close(lanes[c].in);
    }
    return slowest;
}

/* Forks the ranks (every listener is open before any rank connects) and prints the slowest rank's round. */
static int ring(int ranks, int channels, size_t bytes, int warmup, int iters) {
    if (ranks < 2 || ranks > 256 || channels < 1 || channels > 64) {
        fprintf(stderr, "ring: 2..256 ranks, 1..64 channels\n");
        return 2;
    }
    int listeners[ranks];
    struct sockaddr_in addrs[ranks];
    for (int r = 0; r < ranks; r++) {
        addrs[r] = (struct sockaddr_in) {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof addrs[r];
        listeners[r] = socket(AF_INET, SOCK_STREAM, 0);
        if (listeners[r] < 0 || bind(listeners[r], (struct sockaddr *) &addrs[r], len)
                || listen(listeners[r], channels) || getsockname(listeners[r], (struct sockaddr *) &addrs[r], &len))
            die("listen");
    }
    int report[2];
    if (pipe(report)) die("pipe");
    for (int r = 0; r < ranks; r++) {
        pid_t child = fork();
        if (child < 0) die("fork");
        if (child == 0) {
            double us = ring_rank(r, ranks, channels, listeners, addrs, bytes, warmup, iters);
            if (write(report[1], &us, sizeof us) != sizeof us) die("report");
            _exit(0);
        }
    }
    double slowest = 0;
    for (int r = 0; r < ranks; r++) {
        double us;
        if (read(report[0], &us, sizeof us) != sizeof us) die("collect");
        if (us > slowest) slowest = us;
    }
    while (wait(NULL) > 0) {
    }
    printf("ring %d ranks x %d channels, %zu bytes: %.1f us, %.3f GB/s each way per rank\n", ranks, channels,
           bytes, slowest, bytes / slowest / 1e3);
    return 0;
}

static void run(int fd, int sender, int exchange, char *src, char *dst, size_t bytes, int rounds) {
    char ack = 1;
    for (int r = 0; r < rounds; r++) {
        if (exchange) {
            move(fd, src, bytes, dst, bytes);
        } else if (sender) {
            move(fd, src, bytes, NULL, 0);
            move(fd, NULL, 0, &ack, 1);
        } else {
            move(fd, NULL, 0, dst, bytes);
            move(fd, &ack, 1, NULL, 0);
        }
    }
}

int main(int argc, char **argv) {
    yield_idle = getenv("TCP_BOUND_YIELD") && !strcmp(getenv("TCP_BOUND_YIELD"), "1");
    if (getenv("TCP_BOUND_OFFSET")) page_offset = atol(getenv("TCP_BOUND_OFFSET")) % 4096;
    if (argc == 7 && !strcmp(argv[1], "ring")) {
        return ring(atoi(argv[2]), atoi(argv[3]), strtoull(argv[4], NULL, 10), atoi(argv[5]), atoi(argv[6]));
    }
    if (argc != 5 || (strcmp(argv[1], "stream") && strcmp(argv[1], "exchange"))) {
        fprintf(stderr, "usage: tcp_bound stream|exchange BYTES WARMUP ITERS\n"
                        "       tcp_bound ring RANKS CHANNELS BYTES WARMUP ITERS\n");
        return 2;
    }
    int exchange = !strcmp(argv[1], "exchange");
    size_t bytes = strtoull(argv[2], NULL, 10);
    int warmup = atoi(argv[3]), iters = atoi(argv[4]);

    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    if (listener < 0 || bind(listener, (struct sockaddr *) &addr, sizeof addr) || listen(listener, 1)
            || getsockname(listener, (struct sockaddr *) &addr, &len)) die("listen");
    pid_t child = fork();
    if (child < 0) die("fork");
    int fd;
    if (child == 0) {
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &addr, sizeof addr)) die("connect");
    } else {
        fd = accept(listener, NULL, NULL);
        if (fd < 0) die("accept");
    }
    close(listener);
    tune(fd);
    int sender = child != 0;

    char *src = touched(bytes, sender), *dst = touched(bytes, 0);
    run(fd, sender, exchange, src, dst, bytes, warmup);
    double start = now_us();
    run(fd, sender, exchange, src, dst, bytes, iters);
    double us = (now_us() - start) / iters;
    if (sender) {
        waitpid(child, NULL, 0);
        printf("%s %zu bytes: %.1f us, %.3f GB/s each way\n", argv[1], bytes, us, bytes / us / 1e3);
    }
    if (page_offset < 0) { /* offset buffers are not where their allocation starts */
        free(src);
        free(dst);
    }
    close(fd);
    return 0;
}
