/*
 * delayline: a switch of N tap devices in user space that holds every frame for a fixed delay and sends it on at
 * a fixed rate per port, for the multi-host bench (hosts.sh up N --delay D) on kernels without tc's netem.
 *
 *   delayline --delay 2ms --rate 1gbit [--queue 8m] TAP0 TAP1 ...
 *
 * It creates the taps (root only), prints "ready" once they exist, and forwards until it is killed; hosts.sh then
 * moves each tap into its namespace as eth0. A frame read from one tap leaves on the port its destination MAC was
 * last seen on (every other port for broadcasts and addresses not yet seen) after exactly the delay, or later
 * where the port is still sending earlier frames: each port sends at the rate, as the link behind a switch port
 * would, counting the bytes tc's tbf counts (a TCP segment's headers once per segment). A port with more than the
 * queue's bytes waiting drops what comes next, as a full switch buffer does. The host side's own rate (host to
 * switch) is tbf's on the tap, in the namespace.
 *
 * The taps carry the kernel's large TCP segments whole (IFF_VNET_HDR with TSO): a 64 KB segment is one read and
 * one write here, so 4 hosts at 1 Gbit/s each way take a small part of one core, where 1500-byte frames would
 * take several hundred thousand system calls a second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_PORTS 64
#define MAX_FRAME (65536 + 256)
#define HDR ((int) sizeof(struct virtio_net_hdr))
#define MACS 256

struct frame {
    struct frame *next;
    uint64_t due;   /* when it leaves, ns on CLOCK_MONOTONIC */
    int bytes;      /* what it counts against the port's rate */
    int len;        /* vnet header + frame */
    unsigned char data[];
};

struct port {
    int fd;
    struct frame *head, *tail;
    uint64_t free_at;  /* when the port has sent everything queued */
    long queued;       /* bytes waiting */
    long sent, dropped;
};

static struct port ports[MAX_PORTS];
static int nports;
static struct { unsigned char mac[6]; int port; } macs[MACS];
static int nmacs;
static volatile sig_atomic_t stop;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

/* "2ms", "500us", "0" -> ns; "1gbit", "100mbit" -> bits/s; "8m", "512k" -> bytes */
static double number(const char *s, const char *what, const char **unit) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) {
        fprintf(stderr, "delayline: bad %s: %s\n", what, s);
        exit(2);
    }
    *unit = end;
    return v;
}

static uint64_t parse_delay(const char *s) {
    const char *u;
    double v = number(s, "delay", &u);
    if (!strcmp(u, "ms")) return (uint64_t) (v * 1e6);
    if (!strcmp(u, "us")) return (uint64_t) (v * 1e3);
    if (!strcmp(u, "s")) return (uint64_t) (v * 1e9);
    if (!*u && v == 0) return 0;
    fprintf(stderr, "delayline: delay needs a unit (s, ms, us): %s\n", s);
    exit(2);
}

static double parse_rate(const char *s) {
    const char *u;
    double v = number(s, "rate", &u);
    if (!strcmp(u, "gbit")) return v * 1e9;
    if (!strcmp(u, "mbit")) return v * 1e6;
    if (!strcmp(u, "kbit")) return v * 1e3;
    if (!strcmp(u, "bit")) return v;
    fprintf(stderr, "delayline: rate needs a unit (gbit, mbit, kbit, bit): %s\n", s);
    exit(2);
}

static long parse_bytes(const char *s) {
    const char *u;
    double v = number(s, "queue", &u);
    if (!strcasecmp(u, "k")) return (long) (v * 1024);
    if (!strcasecmp(u, "m")) return (long) (v * 1024 * 1024);
    if (!*u) return (long) v;
    fprintf(stderr, "delayline: bad queue size: %s\n", s);
    exit(2);
}

static int open_tap(const char *name) {
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
    if (fd < 0) die("open /dev/net/tun");
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
    if (strlen(name) >= IFNAMSIZ) {
        fprintf(stderr, "delayline: tap name too long: %s\n", name);
        exit(2);
    }
    strcpy(ifr.ifr_name, name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) die("TUNSETIFF");
    int hdr = HDR;
    if (ioctl(fd, TUNSETVNETHDRSZ, &hdr) < 0) die("TUNSETVNETHDRSZ");
    /* the kernel may then hand over (and take) TCP segments of up to 64 KB with their checksums left to do */
    if (ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6) < 0) die("TUNSETOFFLOAD");
    return fd;
}

/* Bytes a frame counts against a rate, as tbf counts them: a large segment's headers once per wire segment. */
static int wire_bytes(const unsigned char *d, int len) {
    const struct virtio_net_hdr *h = (const struct virtio_net_hdr *) d;
    int frame = len - HDR;
    int type = h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
    if (type == VIRTIO_NET_HDR_GSO_NONE || h->gso_size == 0 || frame < 14 + 20 + 20) {
        return frame;
    }
    const unsigned char *e = d + HDR;
    int l3 = 14, l4;
    if (type == VIRTIO_NET_HDR_GSO_TCPV4) {
        l4 = l3 + (e[l3] & 0x0f) * 4;
    } else {
        l4 = l3 + 40; /* IPv6 without extension headers: all this bench sends */
    }
    if (l4 + 13 >= frame) return frame;
    int headers = l4 + (e[l4 + 12] >> 4) * 4;
    int payload = frame - headers;
    int segments = (payload + h->gso_size - 1) / h->gso_size;
    return frame + (segments > 1 ? (segments - 1) * headers : 0);
}

static int port_of(const unsigned char *mac) {
    for (int i = 0; i < nmacs; i++) {
        if (!memcmp(macs[i].mac, mac, 6)) return macs[i].port;
    }
    return -1;
}

static void learn(const unsigned char *mac, int port) {
    if (mac[0] & 1) return; /* a group address is never a source */
    for (int i = 0; i < nmacs; i++) {
        if (!memcmp(macs[i].mac, mac, 6)) {
            macs[i].port = port;
            return;
        }
    }
    if (nmacs < MACS) {
        memcpy(macs[nmacs].mac, mac, 6);
        macs[nmacs++].port = port;
    }
}

static void enqueue(int to, const unsigned char *d, int len, int bytes, uint64_t arrived, uint64_t delay,
                    double ns_per_byte, long limit) {
    struct port *p = &ports[to];
    if (p->queued + bytes > limit) {
        p->dropped++;
        return;
    }
    struct frame *f = malloc(sizeof *f + len);
    if (!f) die("malloc");
    memcpy(f->data, d, len);
    f->len = len;
    f->bytes = bytes;
    f->next = NULL;
    /* it leaves once the delay has passed and the port has sent what came before it, then takes its time */
    uint64_t start = arrived + delay > p->free_at ? arrived + delay : p->free_at;
    p->free_at = start + (uint64_t) (bytes * ns_per_byte);
    f->due = p->free_at;
    p->queued += bytes;
    if (p->tail) p->tail->next = f; else p->head = f;
    p->tail = f;
}

/* Sends every frame due by now; returns the earliest time a frame is still due, or 0 for none. */
static uint64_t send_due(uint64_t now) {
    uint64_t next = 0;
    for (int i = 0; i < nports; i++) {
        struct port *p = &ports[i];
        while (p->head && p->head->due <= now) {
            struct frame *f = p->head;
            /* a full receive queue in the namespace drops the frame, as a host that cannot keep up would */
            if (write(p->fd, f->data, f->len) == f->len) p->sent++; else p->dropped++;
            p->head = f->next;
            if (!p->head) p->tail = NULL;
            p->queued -= f->bytes;
            free(f);
        }
        if (p->head && (next == 0 || p->head->due < next)) next = p->head->due;
    }
    return next;
}

static void on_signal(int sig) {
    (void) sig;
    stop = 1;
}

int main(int argc, char **argv) {
    uint64_t delay = 0;
    double rate = 0;
    long limit = 8L << 20;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--delay")) delay = parse_delay(argv[i + 1]);
        else if (!strcmp(argv[i], "--rate")) rate = parse_rate(argv[i + 1]);
        else if (!strcmp(argv[i], "--queue")) limit = parse_bytes(argv[i + 1]);
        else {
            fprintf(stderr, "delayline: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    nports = argc - i;
    if (nports < 2 || nports > MAX_PORTS || rate <= 0) {
        fprintf(stderr, "usage: delayline --delay D --rate R [--queue BYTES] TAP0 TAP1 ... (2 to %d taps)\n",
                MAX_PORTS);
        return 2;
    }
    double ns_per_byte = 8e9 / rate;
    for (int k = 0; k < nports; k++) ports[k].fd = open_tap(argv[i + k]);
    prctl(PR_SET_TIMERSLACK, 1000UL); /* wake within a microsecond of a frame's time, not the default 50 */
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("ready: %d taps, delay %.3f ms, rate %.0f Mbit/s, queue %ld bytes a port\n", nports, delay / 1e6,
           rate / 1e6, limit);
    fflush(stdout);

    static unsigned char buf[MAX_FRAME];
    struct pollfd pfd[MAX_PORTS];
    for (int k = 0; k < nports; k++) pfd[k] = (struct pollfd) {.fd = ports[k].fd, .events = POLLIN};
    while (!stop) {
        uint64_t next = send_due(now_ns());
        struct timespec wait, *timeout = NULL;
        if (next) {
            uint64_t now = now_ns();
            uint64_t ns = next > now ? next - now : 0;
            wait = (struct timespec) {.tv_sec = ns / 1000000000u, .tv_nsec = ns % 1000000000u};
            timeout = &wait;
        }
        int ready = ppoll(pfd, nports, timeout, NULL);
        if (ready < 0) {
            if (errno == EINTR) continue;
            die("ppoll");
        }
        for (int k = 0; k < nports && ready > 0; k++) {
            if (!(pfd[k].revents & POLLIN)) continue;
            /* drain what this tap has now: a burst of segments is one wake-up */
            for (int reads = 0; reads < 64; reads++) {
                ssize_t n = read(ports[k].fd, buf, sizeof buf);
                if (n < 0) {
                    if (errno == EAGAIN || errno == EINTR) break;
                    die("read");
                }
                if (n < HDR + 14) continue;
                uint64_t arrived = now_ns();
                const unsigned char *eth = buf + HDR;
                learn(eth + 6, k);
                int bytes = wire_bytes(buf, (int) n);
                int to = eth[0] & 1 ? -1 : port_of(eth);
                if (to >= 0) {
                    if (to != k) enqueue(to, buf, (int) n, bytes, arrived, delay, ns_per_byte, limit);
                } else {
                    for (int j = 0; j < nports; j++) {
                        if (j != k) enqueue(j, buf, (int) n, bytes, arrived, delay, ns_per_byte, limit);
                    }
                }
            }
        }
    }
    for (int k = 0; k < nports; k++) {
        fprintf(stderr, "delayline: port %d (%s): %ld frames sent, %ld dropped\n", k, argv[i + k], ports[k].sent,
                ports[k].dropped);
    }
    return 0;
}
