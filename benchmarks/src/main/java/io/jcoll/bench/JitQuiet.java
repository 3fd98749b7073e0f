package io.jcoll.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.LongUnaryOperator;

/**
 * Waits for the JIT compiler to go idle. A benchmark's warm-up queues
 * compilations that the JIT's own threads finish later; where ranks have a
 * core each and no more, those threads would run beside the first timed
 * calls and take a rank's core, so the table would show the compiler, not
 * the collective. The JVM reports the compiler's accumulated time
 * ({@link CompilationMXBean}); it is idle when that stops growing.
 */
final class JitQuiet {

    private static final long POLL_MILLIS = 20;

    /**
     * A settling burst's calls of one kind take about this long on the slowest rank: long enough for the code a burst
     * runs to reach C2's call counts, so that a quiet burst means compiled code, not code still counting its calls.
     * Bursts sized from a size's first calls, made before its path was compiled, were too short: C2 then compiled the
     * path into the timed calls (benchmarks/results/dev-2026-12-02-settle-bursts, dev-2026-12-02-perf-settle).
     */
    static final Duration BURST = Duration.ofMillis(100);
    /** Bursts per size at most. */
    static final int MAX_BURSTS = 12;
    private static final int MIN_BURST_CALLS = 8;
    private static final int MAX_BURST_CALLS = 50_000;

    private JitQuiet() {
    }

    /** The compiler's accumulated time in milliseconds, or -1 where the JVM does not report it. */
    static long compilationMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    /**
     * Returns once the compiler's time has not grown for {@code quiet}, or after {@code limit} (a JIT that never
     * goes quiet must not hold the benchmark up). Returns at once where the JVM does not report compilation time.
     */
    static void await(Duration quiet, Duration limit) {
        if (compilationMillis() < 0) {
            return;
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long end = System.nanoTime() + limit.toNanos();
        long last = jit.getTotalCompilationTime();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - end < 0) {
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = jit.getTotalCompilationTime();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince >= quiet.toNanos()) {
                return;
            }
        }
    }

    /**
     * Calls of {@code nanosPerCall} each that take about {@code duration}, at least a handful and at most
     * {@value #MAX_BURST_CALLS}; a call timed at under a nanosecond (or NaN) counts as one.
     */
    static int callsLasting(Duration duration, double nanosPerCall) {
        double each = nanosPerCall > 1 ? nanosPerCall : 1;
        return (int) Math.max(MIN_BURST_CALLS, Math.min(MAX_BURST_CALLS, duration.toNanos() / each));
    }

    /**
     * Runs {@code burst} and waits for the compiler ({@link #await}) until a burst gives the compiler nothing new on
     * any rank, {@code maxBursts} times at most and not past {@code deadlineNanos}. Call counts alone leave code
     * compiling into the timed calls where the ranks spin on every core: the compiler's threads get the CPU only
     * between calls, and each compilation they finish later takes a rank's core for milliseconds while its peers
     * wait (benchmarks/results/history-tcp.md; on the shared-memory transport, benchmarks/results/
     * dev-2026-11-30-settled). Between bursts the ranks sleep, so the compiler has the cores to itself. Every rank
     * makes the same calls: {@code maxOverRanks} returns the largest of the ranks' values (an all-reduce), and
     * whether to go on is decided on it.
     *
     * @return false where the deadline passed on some rank: nothing more is to be settled
     */
    static boolean settle(Runnable burst, LongUnaryOperator maxOverRanks, int maxBursts, long deadlineNanos) {
        for (int b = 0; b < maxBursts; b++) {
            long before = compilationMillis();
            burst.run();
            await(Duration.ofMillis(100), Duration.ofSeconds(2));
            long late = System.nanoTime() - deadlineNanos >= 0 ? 2 : 0;
            long seen = maxOverRanks.applyAsLong(late + (compilationMillis() != before ? 1 : 0));
            if (seen >= 2) {
                return false;
            }
            if (seen == 0) {
                return true;
            }
        }
        return true;
    }
}
