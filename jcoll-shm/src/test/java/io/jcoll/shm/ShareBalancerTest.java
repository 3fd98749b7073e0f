package io.jcoll.shm;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The out-of-place broadcast root's share, found on a modelled host: the root copies the whole message at
 * {@code ownSpeed} times a kernel copy's speed and its share by a kernel copy, a receiver the rest by a kernel copy,
 * each call's times off by up to 10 % of noise. The share must settle where both are done together, whichever the
 * host, and never leave its bounds.
 */
class ShareBalancerTest {

    /** Root and receiver times of one call on the model, in ns, a kernel copy taking 0.1 ns a byte. */
    private static long[] call(long bytes, long share, double ownSpeed, int receivers, SplittableRandom noise) {
        double kernel = 0.1;
        double root = bytes * kernel / ownSpeed + receivers * share * kernel;
        double receiver = (bytes - share) * kernel;
        return new long[] {(long) (root * (0.95 + 0.1 * noise.nextDouble())),
                (long) (receiver * (0.95 + 0.1 * noise.nextDouble()))};
    }

    /**
     * The model's balance: own/speed + receivers * x = 1 - x, as a fraction of the message. 2 ranks whose own copy
     * is three times as fast (the VM: a third), as fast (a Xeon: none), twice as fast (a quarter); 4 ranks three
     * times as fast ((1 - 1/3) / 4 = a sixth).
     */
    @ParameterizedTest(name = "{0} ranks, own copy {1}x a kernel copy")
    @CsvSource({"2, 3.0", "2, 1.0", "2, 2.0", "4, 3.0"})
    void settlesWhereTheRootAndTheReceiversAreDoneTogether(int ranks, double ownSpeed) {
        SplittableRandom noise = new SplittableRandom(ranks * 31L + (long) ownSpeed);
        ShareBalancer balancer = new ShareBalancer(ranks);
        long bytes = 8L << 20;
        double balance = Math.max(0, (1 - 1 / ownSpeed) / ranks);
        double lo = 1, hi = 0;
        for (int i = 0; i < 4000; i++) {
            long share = balancer.shareBytes(bytes, 4);
            assertEquals(0, share % 4096, "whole pages");
            long[] t = call(bytes, share, ownSpeed, ranks - 1, noise);
            balancer.record(bytes, t[0], t[1]);
            if (i >= 2000) { // settled: where it moves from then on
                lo = Math.min(lo, balancer.fraction(bytes));
                hi = Math.max(hi, balancer.fraction(bytes));
            }
        }
        // within the tolerance's worth of the balance, give or take a step either way
        double slack = ShareBalancer.TOLERANCE + 2 * ShareBalancer.STEP;
        assertTrue(lo >= balance - slack && hi <= balance + slack,
                "settled at " + lo + "-" + hi + " where the balance is " + balance);
        assertTrue(hi <= 1.0 / ranks, "at most the even part: " + hi);
    }

    /** Each size keeps its own share, and a word that is no time (a receiver's garbage) moves nothing. */
    @Test
    void sizesAreApartAndGarbageIsIgnored() {
        ShareBalancer balancer = new ShareBalancer(2);
        for (int i = 0; i < 400; i++) {
            balancer.record(1 << 20, 100, 300); // the root finished first: its share grows
            balancer.record(32 << 20, 300, 100); // the receiver did: its share stays at none
            balancer.record(8 << 20, 100, -5);
        }
        assertEquals(0.5, balancer.fraction(1 << 20), 1e-9, "capped at the even part");
        assertEquals(0, balancer.fraction(32 << 20));
        assertEquals(0, balancer.fraction(8 << 20));
        assertEquals(0, balancer.shareBytes(4095, 1), "not a whole page");
    }

    /**
     * Below {@link ShareBalancer#MIN_BYTES} a message gets no share, however far ahead its root's calls finished; at
     * the minimum the same calls grow one.
     */
    @Test
    void smallMessagesGetNoShare() {
        ShareBalancer balancer = new ShareBalancer(2);
        long below = ShareBalancer.MIN_BYTES / 2;
        for (int i = 0; i < 400; i++) {
            balancer.record(below, 100, 300);
            balancer.record(ShareBalancer.MIN_BYTES, 100, 300);
        }
        assertEquals(0, balancer.shareBytes(below, 4), "below the minimum");
        assertEquals(ShareBalancer.MIN_BYTES / 2, balancer.shareBytes(ShareBalancer.MIN_BYTES, 4), "at the minimum");
    }
}
