package io.jcoll.bench;

import java.util.Locale;

/**
 * What one {@link System#nanoTime} read costs on this host, in nanoseconds: a small collective's call path reads
 * the clock, and on a virtual machine a read is tens of nanoseconds, a sizeable part of a call of a few hundred.
 * Prints five rounds of 20 million reads after a warm-up round.
 * {@code java -cp "$(./jcoll classpath)" io.jcoll.bench.ClockCost}
 */
public final class ClockCost {

    private static final int READS = 20_000_000;

    private ClockCost() {
    }

    public static void main(String[] args) {
        long sink = 0;
        for (int round = 0; round <= 5; round++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < READS; i++) {
                sink += System.nanoTime();
            }
            long elapsed = System.nanoTime() - t0;
            if (round > 0) { // round 0 compiles the loop
                System.out.printf(Locale.ROOT, "round %d: %.1f ns a System.nanoTime read%n", round,
                        (double) elapsed / READS);
            }
        }
        if (sink == 42) {
            System.out.println(); // keeps the reads from being optimised away
        }
    }
}
