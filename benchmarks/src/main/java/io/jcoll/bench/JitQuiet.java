package io.jcoll.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;

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
}
