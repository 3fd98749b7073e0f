package io.jcoll.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches this JVM's own progress while a fault test times how fast ranks in other processes name a failure: a
 * thread that asks to wake every 10 ms notes each time it woke far later. Such a lateness is the machine's, not the
 * code's under test (a virtual machine whose vCPUs its host takes away for a while: the likely cause of a
 * SIGSTOPped rank named 2.2 s after its timeout in one CI run, where every other run names it within 0.15 s of
 * it), and a detection timed across it holds it. The tests take the stalls that ended within what they time off
 * it, and say so.
 */
public final class StallWatch implements AutoCloseable {

    private static final long TICK_NANOS = 10_000_000;
    /** Later than this past the tick is a stall: far beyond a busy host's scheduling delays of a few ms. */
    private static final long STALL_NANOS = 200_000_000;

    /** One stall: when the watcher woke (epoch ms) and how much later than asked. */
    private record Stall(long endMillis, long lateMillis) {
    }

    private final List<Stall> stalls = new ArrayList<>();
    private final Thread ticker;
    private volatile boolean stopped;

    private StallWatch() {
        ticker = new Thread(this::tick, "stall-watch");
        ticker.setDaemon(true);
    }

    /** Starts watching. */
    public static StallWatch start() {
        StallWatch watch = new StallWatch();
        watch.ticker.start();
        return watch;
    }

    private void tick() {
        long last = System.nanoTime();
        while (!stopped) {
            LockSupport.parkNanos(TICK_NANOS);
            long now = System.nanoTime();
            long late = now - last - TICK_NANOS;
            if (late > STALL_NANOS) {
                synchronized (stalls) {
                    stalls.add(new Stall(System.currentTimeMillis(), late / 1_000_000));
                }
            }
            last = now;
        }
    }

    /** The stalls this JVM saw end after {@code fromMillis} and by {@code toMillis} (epoch ms), in ms. */
    public long stalledMillis(long fromMillis, long toMillis) {
        synchronized (stalls) {
            return stalls.stream().filter(s -> s.endMillis() > fromMillis && s.endMillis() <= toMillis)
                    .mapToLong(Stall::lateMillis).sum();
        }
    }

    @Override
    public void close() {
        stopped = true;
        LockSupport.unpark(ticker);
        try {
            ticker.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
