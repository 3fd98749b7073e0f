package io.jcoll.internal;

import io.jcoll.bootstrap.Store;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The network between every pair of hosts, measured by one process per host:
 * in each round every host pairs with one other (a round-robin tournament, so
 * no host's link carries two tests at once), the two connect on the data
 * interface, and each streams to the other for a short window while the other
 * measures what arrives. A host that cannot connect (a firewall, a wrong
 * route) and an exchange that stalls are recorded as such; a watchdog closes
 * every test at its time limit, so a hanging link cannot hang the doctor.
 * Each direction's result goes to the store, written by the host that received it.
 */
final class LinkTest {

    static final Duration CONNECT = Duration.ofSeconds(2);
    static final Duration WINDOW = Duration.ofMillis(300);
    static final Duration PAIR_LIMIT = Duration.ofSeconds(4);
    private static final int MAGIC = 0x6a636c6b; // "jclk"
    private static final int CHUNK = 1 << 20;

    /** One direction's outcome. */
    record Direction(boolean reachable, long bytes, long nanos, String note) {

        double gbitPerSecond() {
            return nanos <= 0 ? 0 : bytes * 8.0 / nanos;
        }

        String encode() {
            return (reachable ? "ok" : "fail") + " " + bytes + " " + nanos + " " + note;
        }

        static Direction decode(byte[] raw) {
            String[] f = new String(raw, StandardCharsets.UTF_8).split(" ", 4);
            try {
                return new Direction(f[0].equals("ok"), Long.parseLong(f[1]), Long.parseLong(f[2]),
                        f.length > 3 ? f[3] : "");
            } catch (RuntimeException e) {
                return new Direction(false, 0, 0, "its result could not be read");
            }
        }
    }

    private final Store store;
    private final int me;            // this host's index in the plan
    private final int hosts;
    private final List<String> names;
    private final ServerSocket listener;
    private final ScheduledExecutorService watchdog;

    private LinkTest(Store store, int me, List<String> names, ServerSocket listener) {
        this.store = store;
        this.me = me;
        this.hosts = names.size();
        this.names = names;
        this.listener = listener;
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jcoll-doctor-link-watchdog");
            t.setDaemon(true);
            return t;
        });
    }

    /** Rounds of the tournament: {@code pairs[r][h]} is host h's partner in round r, or -1 for none. */
    static int[][] rounds(int hosts) {
        int n = hosts % 2 == 0 ? hosts : hosts + 1; // an odd count gets a bye each round
        int[] circle = new int[n];
        for (int i = 0; i < n; i++) {
            circle[i] = i;
        }
        int[][] partners = new int[Math.max(0, n - 1)][hosts];
        for (int r = 0; r < n - 1; r++) {
            Arrays.fill(partners[r], -1);
            for (int k = 0; k < n / 2; k++) {
                int a = circle[k];
                int b = circle[n - 1 - k];
                if (a < hosts && b < hosts) {
                    partners[r][a] = b;
                    partners[r][b] = a;
                }
            }
            int last = circle[n - 1]; // keep position 0, turn the rest by one
            System.arraycopy(circle, 1, circle, 2, n - 2);
            circle[1] = last;
        }
        return partners;
    }

    /** Where the TCP test's results are kept in the store. */
    static final String KEYS = "links/";

    /** The store key of one direction's result, under a test's {@code prefix}. */
    static String directionKey(String prefix, int from, int to) {
        return prefix + "dir/" + from + "-" + to;
    }

    /**
     * Runs this host's part: publishes its endpoint, then plays every round, waiting for all hosts at the start
     * of each (a host that never comes is waited for only a bounded time).
     */
    static void run(Store store, int me, List<String> names, InetAddress dataAddress) {
        int hosts = names.size();
        ServerSocket listener;
        try {
            listener = new ServerSocket();
            listener.bind(new InetSocketAddress(dataAddress, 0), hosts + 8);
        } catch (IOException e) {
            for (int other = 0; other < hosts; other++) {
                if (other != me) {
                    store.set(directionKey(KEYS, other, me), new Direction(false, 0, 0, names.get(me)
                            + " could not listen on " + dataAddress.getHostAddress() + ": " + e.getMessage()).encode()
                            .getBytes(StandardCharsets.UTF_8));
                }
            }
            return;
        }
        store.set(KEYS + "endpoint/" + me, (dataAddress.getHostAddress() + " " + listener.getLocalPort())
                .getBytes(StandardCharsets.UTF_8));
        LinkTest test = new LinkTest(store, me, names, listener);
        try {
            int[][] rounds = rounds(hosts);
            for (int r = 0; r < rounds.length; r++) {
                meet(store, KEYS, r, hosts, PAIR_LIMIT.plus(CONNECT).plusSeconds(1));
                int partner = rounds[r][me];
                if (partner >= 0) {
                    if (me < partner) {
                        test.dial(r, partner);
                    } else {
                        test.answer(r, partner);
                    }
                }
            }
        } finally {
            test.watchdog.shutdownNow();
            closeQuietly(listener);
        }
    }

    /** Waits until every host has reached round {@code r} of the test under {@code prefix}, for at most {@code most}. */
    static void meet(Store store, String prefix, int r, int hosts, Duration most) {
        String key = prefix + "round/" + r;
        if (store.add(key, 1) == hosts) {
            store.set(key + "/go", new byte[] {1});
        } else {
            store.get(key + "/go", most);
        }
    }

    private void dial(int round, int partner) {
        Optional<InetSocketAddress> endpoint = store.get(KEYS + "endpoint/" + partner, CONNECT)
                .map(b -> new String(b, StandardCharsets.UTF_8).split(" "))
                .map(f -> new InetSocketAddress(f[0], Integer.parseInt(f[1])));
        if (endpoint.isEmpty()) {
            record(partner, me, new Direction(false, 0, 0, names.get(partner) + " never published its endpoint"));
            return;
        }
        Socket s = new Socket();
        ScheduledFuture<?> limit = watchdog.schedule(() -> closeQuietly(s), PAIR_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        try {
            try {
                s.connect(endpoint.get(), (int) CONNECT.toMillis());
            } catch (IOException e) {
                record(partner, me, new Direction(false, 0, 0, "no connection to " + endpoint.get().getAddress()
                        .getHostAddress() + ":" + endpoint.get().getPort() + " (" + reason(e) + ")"));
                return;
            }
            s.setTcpNoDelay(true);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(MAGIC);
            out.writeInt(round);
            out.writeInt(me);
            stream(out);
            record(partner, me, receive(s.getInputStream()));
        } catch (IOException e) {
            record(partner, me, new Direction(true, 0, 0, "the exchange broke off: " + reason(e)));
        } finally {
            limit.cancel(false);
            closeQuietly(s);
        }
    }

    private void answer(int round, int partner) {
        long deadline = System.nanoTime() + CONNECT.plusSeconds(1).toNanos();
        while (true) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                record(partner, me, new Direction(false, 0, 0, "no connection from " + names.get(partner) + " arrived within "
                        + CONNECT.plusSeconds(1).toSeconds() + " s (a firewall dropping the port, or a wrong route)"));
                return;
            }
            Socket s;
            try {
                listener.setSoTimeout((int) left);
                s = listener.accept();
            } catch (SocketTimeoutException e) {
                continue;
            } catch (IOException e) {
                record(partner, me, new Direction(false, 0, 0, "accepting failed: " + reason(e)));
                return;
            }
            ScheduledFuture<?> limit = watchdog.schedule(() -> closeQuietly(s), PAIR_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
            try {
                s.setSoTimeout((int) CONNECT.toMillis());
                DataInputStream in = new DataInputStream(s.getInputStream());
                if (in.readInt() != MAGIC || in.readInt() != round || in.readInt() != partner) {
                    continue; // a stranger, or a partner of another round: not this test
                }
                s.setSoTimeout(0);
                s.setTcpNoDelay(true);
                Direction d = receive(in);
                stream(new DataOutputStream(s.getOutputStream()));
                record(partner, me, d);
                return;
            } catch (IOException e) {
                record(partner, me, new Direction(true, 0, 0, "the exchange broke off: " + reason(e)));
                return;
            } finally {
                limit.cancel(false);
                closeQuietly(s);
            }
        }
    }

    /** Streams chunks for the window, then the end mark. */
    private static void stream(DataOutputStream out) throws IOException {
        byte[] chunk = new byte[CHUNK];
        long end = System.nanoTime() + WINDOW.toNanos();
        while (System.nanoTime() < end) {
            out.writeInt(CHUNK);
            out.write(chunk);
        }
        out.writeInt(0);
        out.flush();
    }

    /** Reads chunks up to the end mark, timing them from the first; an exchange cut short keeps what arrived. */
    private static Direction receive(InputStream raw) {
        DataInputStream in = raw instanceof DataInputStream d ? d : new DataInputStream(raw);
        byte[] chunk = new byte[CHUNK];
        long bytes = 0;
        long first = 0;
        try {
            while (true) {
                int length = in.readInt();
                if (first == 0) {
                    first = System.nanoTime();
                }
                if (length == 0) {
                    return new Direction(true, bytes, System.nanoTime() - first, "");
                }
                if (length < 0 || length > CHUNK) {
                    return new Direction(true, bytes, System.nanoTime() - first, "a frame of " + length
                            + " bytes: not the doctor's link test on the other end");
                }
                in.readFully(chunk, 0, length);
                bytes += length;
            }
        } catch (IOException e) {
            long nanos = first == 0 ? 0 : System.nanoTime() - first;
            return new Direction(true, bytes, nanos, "the exchange did not finish within " + PAIR_LIMIT.toSeconds()
                    + " s (" + reason(e) + "); " + (bytes >> 20) + " MiB arrived");
        }
    }

    private void record(int from, int to, Direction d) {
        store.set(directionKey(KEYS, from, to), d.encode().getBytes(StandardCharsets.UTF_8));
    }

    private static String reason(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // already closed, or closing is all that was left
        }
    }

    /**
     * Every direction's result of the test under {@code prefix}, waiting until {@code deadlineNanos} for those not
     * yet written.
     */
    static Direction[][] results(Store store, String prefix, int hosts, long deadlineNanos) {
        Direction[][] d = new Direction[hosts][hosts];
        for (int from = 0; from < hosts; from++) {
            for (int to = 0; to < hosts; to++) {
                if (from != to) {
                    Duration wait = Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
                    d[from][to] = store.get(directionKey(prefix, from, to), wait).map(Direction::decode)
                            .orElse(new Direction(false, 0, 0, "no result came (the receiving host's doctor stopped?)"));
                }
            }
        }
        return d;
    }
}
