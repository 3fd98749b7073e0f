package io.jcoll.internal;

import io.jcoll.bootstrap.Store;
import io.jcoll.spi.PairExchange;
import io.jcoll.spi.Settings;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The network between every pair of hosts over the job's own transport ({@link PairExchange}: NCCL's send/recv), run
 * after the TCP test ({@link LinkTest}) and in the same tournament, so no host's link carries two tests at once.
 * In each pair the host with the lower index makes the token and hands it over through the store; both join, and
 * each direction is timed by its receiver and written to the store as the TCP test's are. How much each direction
 * moves comes from the TCP test of the same direction (about {@link LinkTest#WINDOW}'s worth at that rate), so a
 * slow link is not asked for seconds of traffic. An exchange that outlives the pair's limit is left behind and
 * reported, so a hanging library cannot hang the doctor.
 */
final class PairLinkTest {

    /**
     * How long one pair may take to join and move both directions unless {@code JCOLL_DOCTOR_PAIR_LIMIT} says
     * otherwise: NCCL's bootstrap and connection set-up take a second or two, more on large fabrics.
     */
    static final Duration PAIR_LIMIT = Duration.ofSeconds(10);
    static final String LIMIT_SETTING = "JCOLL_DOCTOR_PAIR_LIMIT";
    /** How long a side waits for its partner's token. */
    static final Duration TOKEN_WAIT = Duration.ofSeconds(3);
    static final long MIN_BYTES = 1 << 20;
    static final long MAX_BYTES = 1L << 30;
    /** Bytes a direction moves where the TCP test measured nothing to go by. */
    static final long FALLBACK_BYTES = 8L << 20;

    private PairLinkTest() {
    }

    /** Where this path's results are kept in the store. */
    static String keys(String path) {
        return "pairs/" + path + "/";
    }

    /** Every pair exchange on the class path, by name. */
    static List<PairExchange> installed() {
        List<PairExchange> found = new ArrayList<>();
        ServiceLoader.load(PairExchange.class).forEach(found::add);
        return found;
    }

    /** The names of the exchanges this process can take part in ({@code "nccl"}), for its probe. */
    static List<String> usable(Settings settings) {
        List<String> names = new ArrayList<>();
        for (PairExchange p : installed()) {
            try {
                if (p.availability(settings).usable()) {
                    names.add(p.name());
                }
            } catch (RuntimeException | LinkageError e) {
                // a path whose library cannot even be asked is not usable here
            }
        }
        return names;
    }

    /** One pair's limit: {@code JCOLL_DOCTOR_PAIR_LIMIT}, else {@link #PAIR_LIMIT}. */
    static Duration limit(Settings settings) {
        return settings.getDuration(LIMIT_SETTING, PAIR_LIMIT);
    }

    /** An upper bound of one run with {@code hosts} hosts, each pair within {@code limit}. */
    static Duration bound(int hosts, Duration limit) {
        Duration round = limit.plus(TOKEN_WAIT).plusSeconds(2);
        return round.multipliedBy(Math.max(1, hosts));
    }

    /** Runs this host's part of the test over {@code path}: every round of the tournament. */
    static void run(Store store, String path, int me, List<String> names, Settings settings) {
        String prefix = keys(path);
        int hosts = names.size();
        Optional<PairExchange> exchange = installed().stream().filter(p -> p.name().equals(path)).findFirst();
        Duration limit = limit(settings);
        ExecutorService worker = worker();
        try {
            int[][] rounds = LinkTest.rounds(hosts);
            for (int r = 0; r < rounds.length; r++) {
                LinkTest.meet(store, prefix, r, hosts, limit.plus(TOKEN_WAIT).plusSeconds(1));
                int partner = rounds[r][me];
                if (partner < 0) {
                    continue;
                }
                LinkTest.Direction received;
                if (exchange.isEmpty()) {
                    received = new LinkTest.Direction(false, 0, 0, names.get(me) + " has no " + path
                            + " exchange on its class path");
                    if (me < partner) {
                        offer(store, prefix, r, me, partner, null, received.note());
                    }
                } else {
                    Outcome o = play(store, prefix, exchange.get(), r, me, partner, names, settings, limit, worker);
                    received = o.received();
                    if (o.workerLost()) {
                        worker.shutdownNow();
                        worker = worker(); // the old thread is stuck in the library; the next pair gets a fresh one
                    }
                }
                store.set(LinkTest.directionKey(prefix, partner, me), received.encode().getBytes(StandardCharsets.UTF_8));
            }
        } finally {
            worker.shutdownNow();
        }
    }

    private record Outcome(LinkTest.Direction received, boolean workerLost) {
    }

    private static Outcome play(Store store, String prefix, PairExchange exchange, int round, int me, int partner,
                                List<String> names, Settings settings, Duration limit, ExecutorService worker) {
        int side = me < partner ? 0 : 1;
        byte[] token;
        if (side == 0) {
            try {
                token = exchange.token();
            } catch (Exception | LinkageError e) {
                String why = names.get(me) + " could not make a " + exchange.name() + " token: " + message(e);
                offer(store, prefix, round, me, partner, null, why);
                return new Outcome(new LinkTest.Direction(false, 0, 0, why), false);
            }
            offer(store, prefix, round, me, partner, token, null);
        } else {
            Optional<byte[]> raw = store.get(tokenKey(prefix, round, partner, me), TOKEN_WAIT);
            if (raw.isEmpty() || raw.get().length == 0) {
                return new Outcome(new LinkTest.Direction(false, 0, 0, names.get(partner) + " handed over no "
                        + exchange.name() + " token within " + TOKEN_WAIT.toSeconds() + " s"), false);
            }
            if (raw.get()[0] != 0) {
                return new Outcome(new LinkTest.Direction(false, 0, 0, new String(raw.get(), 1, raw.get().length - 1,
                        StandardCharsets.UTF_8)), false);
            }
            token = java.util.Arrays.copyOfRange(raw.get(), 1, raw.get().length);
        }
        int low = Math.min(me, partner);
        int high = Math.max(me, partner);
        long[] bytes = {volume(store, low, high), volume(store, high, low)}; // side 0 is the lower host
        long deadline = System.nanoTime() + limit.toNanos();
        Future<PairExchange.Received> f = worker.submit(() -> exchange.exchange(token, side, bytes, settings, deadline));
        try {
            PairExchange.Received got = f.get(limit.plusSeconds(1).toMillis(), TimeUnit.MILLISECONDS);
            return new Outcome(new LinkTest.Direction(true, got.bytes(), got.nanos(), ""), false);
        } catch (TimeoutException e) {
            f.cancel(true);
            return new Outcome(new LinkTest.Direction(true, 0, 0, "the " + exchange.name() + " exchange did not end "
                    + "within " + limit.toSeconds() + " s, nor return after its own deadline"), true);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            boolean late = cause instanceof TimeoutException;
            return new Outcome(new LinkTest.Direction(late, 0, 0, message(cause)), false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(new LinkTest.Direction(true, 0, 0, "interrupted"), true);
        }
    }

    /** Side 0 hands its token, or why it has none, to side 1: a leading 0 byte, or 1 and the reason. */
    private static void offer(Store store, String prefix, int round, int me, int partner, byte[] token, String why) {
        byte[] text = why == null ? new byte[0] : why.getBytes(StandardCharsets.UTF_8);
        byte[] body = token != null ? token : text;
        byte[] value = new byte[body.length + 1];
        value[0] = (byte) (token != null ? 0 : 1);
        System.arraycopy(body, 0, value, 1, body.length);
        store.set(tokenKey(prefix, round, me, partner), value);
    }

    private static String tokenKey(String prefix, int round, int from, int to) {
        return prefix + "token/" + round + "/" + from + "-" + to;
    }

    /** About a window's worth of bytes at the rate the TCP test measured for this direction. */
    static long volume(Store store, int from, int to) {
        Optional<LinkTest.Direction> tcp = store.get(LinkTest.directionKey(LinkTest.KEYS, from, to), Duration.ofMillis(500))
                .map(LinkTest.Direction::decode);
        if (tcp.isEmpty() || !tcp.get().reachable() || tcp.get().nanos() <= 0 || tcp.get().bytes() <= 0) {
            return FALLBACK_BYTES;
        }
        double perNano = (double) tcp.get().bytes() / tcp.get().nanos();
        long bytes = (long) (perNano * LinkTest.WINDOW.toNanos());
        return Math.max(MIN_BYTES, Math.min(MAX_BYTES, bytes)) & ~0xFFFL; // whole 4 KiB pages: any element type fits
    }

    private static ExecutorService worker() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "jcoll-doctor-pair");
            t.setDaemon(true);
            return t;
        });
    }

    private static String message(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
