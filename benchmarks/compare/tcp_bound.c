/*
 * What loopback TCP itself allows on this machine, with no collective library in the way: the floor
 * under jcoll's and Open MPI's TCP times. Two processes (fork), one connection, each a single thread
 * that polls non-blocking sockets without sleeping, as both libraries do:
 *
 *   stream   BYTES go one way (a 2-rank Broadcast moves exactly this), then a 1-byte reply;
 *   exchange both send BYTES and receive BYTES at once (a 2-rank ring step: AllReduce is two of them
 *            with half the message each, plus a reduction; AllGather and All-to-All one).
 *
 *   tcp_bound stream|exchange BYTES WARMUP ITERS
 *
 * Prints the mean time of ITERS rounds after WARMUP, and the bytes per second each way.
 * Build: cc -O2 -o tcp_bound tcp_bound.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Sends `out` bytes and receives `in` bytes, whichever the socket takes first, until both are done. */
static void move(int fd, const char *src, size_t out, char *dst, size_t in) {
    size_t sent = 0, got = 0;
    while (sent < out || got < in) {
        if (sent < out) {
            ssize_t n = write(fd, src + sent, out - sent);
            if (n > 0) sent += (size_t) n;
            else if (n < 0 && errno != EAGAIN) die("write");
        }
        if (got < in) {
            ssize_t n = read(fd, dst + got, in - got);
            if (n > 0) got += (size_t) n;
            else if (n == 0) { fprintf(stderr, "peer closed\n"); exit(1); }
            else if (errno != EAGAIN) die("read");
        }
    }
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
    if (argc != 5 || (strcmp(argv[1], "stream") && strcmp(argv[1], "exchange"))) {
        fprintf(stderr, "usage: tcp_bound stream|exchange BYTES WARMUP ITERS\n");
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
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int sender = child != 0;

    /* allocated and touched before the clock starts: first-touch page faults are not the network's */
    char *src = malloc(bytes ? bytes : 1), *dst = malloc(bytes ? bytes : 1);
    if (!src || !dst) die("malloc");
    memset(src, sender, bytes);
    memset(dst, 0, bytes);
    run(fd, sender, exchange, src, dst, bytes, warmup);
    double start = now_us();
    run(fd, sender, exchange, src, dst, bytes, iters);
    double us = (now_us() - start) / iters;
    if (sender) {
        waitpid(child, NULL, 0);
        printf("%s %zu bytes: %.1f us, %.3f GB/s each way\n", argv[1], bytes, us, bytes / us / 1e3);
    }
    free(src);
    free(dst);
    close(fd);
    return 0;
}
