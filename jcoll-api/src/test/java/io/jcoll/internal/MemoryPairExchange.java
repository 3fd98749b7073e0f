package io.jcoll.internal;

import io.jcoll.spi.Availability;
import io.jcoll.spi.PairExchange;
import io.jcoll.spi.Settings;

import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A pair exchange between thread ranks of this JVM that stands in for NCCL's (it takes NCCL's name, so the report's
 * NCCL wording is what tests check). Usable only where {@code JCOLL_TEST_PAIRS} is set, so the other doctor tests
 * never plan it: {@code ok} moves the bytes through a queue in chunks, paced like a link of 8 Gbit/s (a chunk a
 * millisecond, so that the rates it reports are a link's and not the scheduler's), {@code refuse} fails to join,
 * {@code hang} joins and then neither sends nor returns, past its deadline.
 */
public final class MemoryPairExchange implements PairExchange {

    static final String MODE = "JCOLL_TEST_PAIRS";
    private static final int CHUNK = 1 << 20;
    private static final byte[] DATA = new byte[CHUNK];
    private static final long PACE = 1_000_000; // nanoseconds a chunk

    /** The two sides of one pair: who has joined, and a queue of chunks each way. */
    private static final class Pair {
        final CountDownLatch joined = new CountDownLatch(2);
        final BlockingQueue<byte[]> toSide1 = new ArrayBlockingQueue<>(4);
        final BlockingQueue<byte[]> toSide0 = new ArrayBlockingQueue<>(4);
    }

    private static final Map<String, Pair> PAIRS = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return "nccl";
    }

    @Override
    public Availability availability(Settings settings) {
        return settings.get(MODE).isPresent() ? Availability.usable("in memory") : Availability.unusable("not a test");
    }

    @Override
    public byte[] token() {
        byte[] t = new byte[16];
        ThreadLocalRandom.current().nextBytes(t);
        return t;
    }

    @Override
    public Received exchange(byte[] token, int side, long[] bytes, Settings settings, long deadlineNanos)
            throws Exception {
        String mode = settings.get(MODE).orElseThrow();
        if (mode.equals("refuse")) {
            throw new IllegalStateException("ncclCommInitRankConfig failed: this node's network refused (a test)");
        }
        String key = HexFormat.of().formatHex(token);
        Pair pair = PAIRS.computeIfAbsent(key, k -> new Pair());
        pair.joined.countDown();
        try {
            return move(pair, side, bytes, mode, deadlineNanos);
        } finally {
            PAIRS.remove(key, pair); // the first side to leave ends the pair: its partner holds its own reference
        }
    }

    private static Received move(Pair pair, int side, long[] bytes, String mode, long deadlineNanos) throws Exception {
        if (!pair.joined.await(left(deadlineNanos), TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("the other side never joined");
        }
        if (mode.equals("hang")) {
            Thread.sleep(60_000); // past every deadline, as a library stuck in a call would be
        }
        Received received = null;
        for (int from = 0; from < 2; from++) {
            BlockingQueue<byte[]> queue = from == 0 ? pair.toSide1 : pair.toSide0;
            long start = System.nanoTime();
            long chunks = 0;
            for (long left = bytes[from]; left > 0; left -= CHUNK) {
                if (side == from) {
                    java.util.concurrent.locks.LockSupport.parkNanos(start + ++chunks * PACE - System.nanoTime());
                    if (!queue.offer(DATA, left(deadlineNanos), TimeUnit.NANOSECONDS)) {
                        throw new TimeoutException("still sending at the deadline");
                    }
                } else if (queue.poll(left(deadlineNanos), TimeUnit.NANOSECONDS) == null) {
                    throw new TimeoutException("still receiving at the deadline");
                }
            }
            if (side != from) {
                received = new Received(bytes[from], System.nanoTime() - start);
            }
        }
        return received;
    }

    private static long left(long deadlineNanos) {
        return Math.max(0, deadlineNanos - System.nanoTime());
    }
}
