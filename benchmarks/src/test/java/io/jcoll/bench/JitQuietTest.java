package io.jcoll.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link JitQuiet#settle} goes on or stops on what the ranks report: the values it hands the all-reduce stand in
 * for one rank's, the answers for every rank's largest.
 */
class JitQuietTest {

    private static final long FAR = Long.MAX_VALUE / 4;

    @Test
    void burstsLastTheirTimeWithinBounds() {
        Duration burst = Duration.ofMillis(100);
        assertEquals(5_000, JitQuiet.callsLasting(burst, 20_000));
        assertEquals(12, JitQuiet.callsLasting(burst, 8e6)); // a 32 MB call on two CPUs
        assertEquals(8, JitQuiet.callsLasting(burst, 1e9)); // never fewer than a handful
        assertEquals(50_000, JitQuiet.callsLasting(burst, 500)); // nor a burst without end
        assertEquals(50_000, JitQuiet.callsLasting(burst, 0));
        assertEquals(50_000, JitQuiet.callsLasting(burst, Double.NaN));
        assertEquals(8, JitQuiet.callsLasting(Duration.ofNanos(-5_000), 1_000)); // a burst already over its time
    }

    @Test
    void aBurstThatLeavesEveryRankQuietEndsTheSettling() {
        AtomicInteger bursts = new AtomicInteger();
        assertTrue(JitQuiet.settle(bursts::incrementAndGet, seen -> 0, 5, System.nanoTime() + FAR));
        assertEquals(1, bursts.get());
    }

    @Test
    void aRankThatCompiledKeepsEveryRankBurstingUpToTheLimit() {
        AtomicInteger bursts = new AtomicInteger();
        List<Long> reported = new ArrayList<>();
        assertTrue(JitQuiet.settle(bursts::incrementAndGet, seen -> {
            reported.add(seen);
            return 1; // some other rank compiled something in every burst
        }, 3, System.nanoTime() + FAR));
        assertEquals(3, bursts.get());
        assertEquals(3, reported.size());
        reported.forEach(seen -> assertTrue(seen == 0 || seen == 1, "a rank before its deadline reports " + seen));
    }

    @Test
    void aRankPastTheDeadlineStopsEveryRank() {
        AtomicInteger bursts = new AtomicInteger();
        assertFalse(JitQuiet.settle(bursts::incrementAndGet, seen -> 3, 5, System.nanoTime() + FAR));
        assertEquals(1, bursts.get());
        List<Long> reported = new ArrayList<>();
        assertFalse(JitQuiet.settle(() -> { }, seen -> {
            reported.add(seen);
            return seen;
        }, 5, System.nanoTime() - 1));
        assertEquals(1, reported.size());
        assertTrue(reported.get(0) >= 2, "a rank past its deadline reports " + reported.get(0));
    }
}
