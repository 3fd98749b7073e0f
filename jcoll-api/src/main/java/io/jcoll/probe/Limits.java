package io.jcoll.probe;

import java.util.Optional;

/**
 * The limits the setup guides ask users to raise by hand: how much memory the
 * process may lock ({@code ulimit -l}, which RDMA needs to register buffers:
 * NCCL's registrations fail or it falls back when it is small), and the socket
 * buffer ceilings ({@code net.core.rmem_max}/{@code wmem_max} cap what a
 * program may ask for with {@code SO_RCVBUF}/{@code SO_SNDBUF};
 * {@code net.ipv4.tcp_rmem}/{@code tcp_wmem}'s third value caps the kernel's
 * own tuning when it asks for nothing), which bound a socket's bandwidth on a
 * long or fast link.
 *
 * @param memlockSoft the soft {@code RLIMIT_MEMLOCK} in bytes ({@link #UNLIMITED}, or {@link #UNKNOWN})
 * @param memlockHard the hard limit, likewise
 * @param rmemMax     {@code /proc/sys/net/core/rmem_max}, or {@link #UNKNOWN}
 * @param wmemMax     {@code /proc/sys/net/core/wmem_max}
 * @param tcpRmemMax  the third field of {@code /proc/sys/net/ipv4/tcp_rmem}
 * @param tcpWmemMax  the third field of {@code /proc/sys/net/ipv4/tcp_wmem}
 */
public record Limits(long memlockSoft, long memlockHard, long rmemMax, long wmemMax, long tcpRmemMax,
                     long tcpWmemMax) {

    public static final long UNLIMITED = Long.MAX_VALUE;
    public static final long UNKNOWN = -1;

    /** Below this, RDMA registrations of NCCL's buffers fail; the guides ask for unlimited. */
    public static final long MEMLOCK_NEEDED = 1L << 30;

    /**
     * A socket buffer this small caps one TCP stream below what a host link carries: 4 MiB covers 10 Gbit/s at
     * about 3 ms of round trip; the guides set 16 MiB and more.
     */
    public static final long SOCKET_BUFFER_NEEDED = 4L << 20;

    public static Limits read(SystemFiles files) {
        long[] memlock = memlock(files);
        return new Limits(memlock[0], memlock[1], files.readLong("/proc/sys/net/core/rmem_max", UNKNOWN),
                files.readLong("/proc/sys/net/core/wmem_max", UNKNOWN), third(files, "/proc/sys/net/ipv4/tcp_rmem"),
                third(files, "/proc/sys/net/ipv4/tcp_wmem"));
    }

    /** "Max locked memory  65536  65536  bytes": soft and hard, in bytes. */
    private static long[] memlock(SystemFiles files) {
        for (String line : files.lines("/proc/self/limits")) {
            if (line.startsWith("Max locked memory")) {
                String[] f = line.substring("Max locked memory".length()).trim().split("\\s+");
                if (f.length >= 2) {
                    return new long[] {bytes(f[0]), bytes(f[1])};
                }
            }
        }
        return new long[] {UNKNOWN, UNKNOWN};
    }

    private static long bytes(String field) {
        if (field.equals("unlimited")) {
            return UNLIMITED;
        }
        try {
            return Long.parseLong(field);
        } catch (NumberFormatException e) {
            return UNKNOWN;
        }
    }

    private static long third(SystemFiles files, String path) {
        Optional<String> text = files.read(path);
        if (text.isEmpty()) {
            return UNKNOWN;
        }
        String[] f = text.get().trim().split("\\s+");
        return f.length == 3 ? bytes(f[2]) : UNKNOWN;
    }

    /** Whether the locked-memory limit is known to be below what RDMA registration needs. */
    public boolean memlockTooSmall() {
        return memlockSoft != UNKNOWN && memlockSoft < MEMLOCK_NEEDED;
    }

    /** The socket buffer ceilings known to be too small for one stream to fill a fast link, in words; empty if none. */
    public Optional<String> smallSocketBuffers() {
        StringBuilder b = new StringBuilder();
        small(b, "net.core.rmem_max", rmemMax);
        small(b, "net.core.wmem_max", wmemMax);
        small(b, "net.ipv4.tcp_rmem (max)", tcpRmemMax);
        small(b, "net.ipv4.tcp_wmem (max)", tcpWmemMax);
        return b.length() == 0 ? Optional.empty() : Optional.of(b.toString());
    }

    private static void small(StringBuilder b, String name, long value) {
        if (value != UNKNOWN && value < SOCKET_BUFFER_NEEDED) {
            b.append(b.length() == 0 ? "" : ", ").append(name).append('=').append(value);
        }
    }

    /** The four socket buffer ceilings in words: {@code rmem_max 4 MiB, wmem_max 4 MiB, tcp_rmem max 32 MiB, ...}. */
    public String socketBuffers() {
        return "rmem_max " + describe(rmemMax) + ", wmem_max " + describe(wmemMax) + ", tcp_rmem max "
                + describe(tcpRmemMax) + ", tcp_wmem max " + describe(tcpWmemMax);
    }

    /** A byte count as the guides write it: {@code unlimited}, {@code 64 KiB}, {@code 8 MiB}, or {@code unknown}. */
    public static String describe(long bytes) {
        if (bytes == UNLIMITED) {
            return "unlimited";
        }
        if (bytes == UNKNOWN) {
            return "unknown";
        }
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }
}
