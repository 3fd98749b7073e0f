package io.jcoll.shm;

import io.jcoll.DataType;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rank 0's choice between single copy and the slots, fed times as calls would report them: a run of each way first,
 * then the faster, the other tried in runs at gaps that double, a way that turns slow left once most of its kept times
 * are slow and one that turns fast taken after its next try, the first call of a run and one slow call not
 * followed, and kinds of call kept apart.
 */
class PathChooserTest {

    private static final long MB = 1 << 20;
    private static final int RUN = PathChooser.RUN;

    @Test
    void runsEachWayThenTakesTheFaster() {
        Call call = call(Operation.ALL_GATHER, MB, false);
        PathChooser chooser = new PathChooser();
        for (int i = 0; i < RUN; i++) {
            assertFalse(chooser.slotsNext(call), "single copy first, call " + i);
            chooser.record(call, false, 100_000);
        }
        for (int i = 0; i < RUN; i++) {
            assertTrue(chooser.slotsNext(call), "then the slots, call " + i);
            chooser.record(call, true, 60_000);
        }
        assertTrue(chooser.slotsNext(call), "then the faster: the slots");
        assertFalse(learned(call, 60_000, 100_000).slotsNext(call), "single copy where it is the faster");
    }

    @Test
    void triesTheOtherWayInRunsAtGapsThatDoubleToTheirLimit() {
        Call call = call(Operation.ALL_TO_ALL, MB, false);
        assertEquals(java.util.List.of(32L, 64L, 128L, 256L, 256L, 256L),
                tryStarts(learned(call, 100_000, 70_000), call, 70_000, 100_000, 32 + 64 + 128 + 3 * 256 + 1));
        // a way so slow that its tries would cost more than TRY_SHARE of the time is tried less often: 4.3x as slow,
        // 8 calls of 3.3 calls' time more at most 1/32 of the gap's (842 calls); 30x, 7424 calls
        assertEquals(java.util.List.of(32L, 64L, 128L, 256L, 512L, 842L, 842L),
                tryStarts(learned(call, 300_000, 70_000), call, 70_000, 300_000, 32 + 64 + 128 + 256 + 512 + 2 * 842 + 1));
        assertEquals(java.util.List.of(32L, 64L, 128L, 256L, 512L, 1024L, 2048L, 4096L, 7424L, 7424L),
                tryStarts(learned(call, 2_100_000, 70_000), call, 70_000, 2_100_000,
                        32 + 64 + 128 + 256 + 512 + 1024 + 2048 + 4096 + 2 * 7424 + 1));
    }

    /**
     * The gaps between the starts of the tries of single copy in {@code calls} calls (the slots the faster), each
     * way taking the time given, every try {@link PathChooser#RUN} calls long: the first gap counted from the first
     * choice.
     */
    private static java.util.List<Long> tryStarts(PathChooser chooser, Call call, long slotsNanos, long singleNanos,
                                                  int calls) {
        java.util.List<Long> gaps = new java.util.ArrayList<>();
        long last = 0;
        int inTry = 0;
        for (long n = 0; n < calls; n++) {
            boolean slots = chooser.slotsNext(call);
            if (!slots && inTry == 0) {
                gaps.add(n - last);
                last = n;
                inTry = RUN;
            }
            if (inTry > 0) {
                assertFalse(slots, "call " + n + " of a try");
                inTry--;
            }
            chooser.record(call, slots, slots ? slotsNanos : singleNanos);
        }
        return gaps;
    }

    @Test
    void leavesAWayThatTurnsSlowAndTakesOneThatTurnsFast() {
        Call call = call(Operation.BROADCAST, 4 * MB, false);
        PathChooser chooser = learned(call, 100_000, 70_000);
        // the host turns slow for the slots: left once the median of their kept times is the slow one
        int slow = 0;
        while (chooser.slotsNext(call)) {
            chooser.record(call, true, 250_000);
            slow++;
        }
        assertEquals(PathChooser.KEPT / 2, slow, "slow calls of the slots before single copy");
        chooser.record(call, false, 100_000);
        // single copy until the slots are tried again, the first gap after the change (not the 32 calls after the
        // first choice, which the slow calls had come before): their slow stretch may have been a passing one
        int n = slow + 1;
        while (!chooser.slotsNext(call)) {
            chooser.record(call, false, 100_000);
            n++;
        }
        assertEquals(slow + PathChooser.FIRST_GAP, n, "the slots tried the first gap after the change of way");
        // the slots turn fast again: the first call of their try pays for the change, the others do not
        chooser.record(call, true, 400_000);
        for (int i = 1; i < RUN; i++) {
            assertTrue(chooser.slotsNext(call), "the slots' try goes on, call " + i);
            chooser.record(call, true, 60_000);
        }
        assertTrue(chooser.slotsNext(call), "and they are taken from that try on");
    }

    @Test
    void theFirstCallOfARunAndOneSlowCallAreNotFollowed() {
        Call call = call(Operation.ALL_REDUCE, 8 * MB, false);
        PathChooser chooser = new PathChooser();
        for (int i = 0; i < RUN; i++) {
            chooser.slotsNext(call);
            chooser.record(call, false, 100_000);
        }
        for (int i = 0; i < RUN; i++) {
            chooser.slotsNext(call);
            chooser.record(call, true, i == 0 ? 900_000 : 70_000); // the change of way paid by the first
        }
        assertTrue(chooser.slotsNext(call), "the slots' least time is a call that did not pay for the change");
        chooser.record(call, true, 5_000_000); // a pause of the collector, say
        assertTrue(chooser.slotsNext(call), "one slow call does not turn the calls to single copy");
    }

    @Test
    void aCallIsTimedFromItsStartToTheNextCallsStart() {
        Call call = call(Operation.ALL_GATHER, MB, false);
        Call small = call(Operation.ALL_TO_ALL, MB / 64, false);
        PathChooser chooser = new PathChooser();
        long clock = 1_000_000;
        for (int i = 0; i < 2 * RUN; i++) {
            boolean slots = chooser.slotsNext(call);
            chooser.started(call, slots, clock);
            clock += slots ? 50_000 : 80_000;
        }
        chooser.started(small, false, clock); // the last of the runs is timed to the start of the next call, any
        assertTrue(chooser.slotsNext(call), "the slots, 50 us a call against 80");
        PathChooser other = new PathChooser();
        for (int i = 0; i < 2 * RUN; i++) {
            boolean slots = other.slotsNext(call);
            other.started(call, slots, clock);
            clock += slots ? 90_000 : 80_000;
        }
        other.started(small, false, clock);
        assertFalse(other.slotsNext(call), "single copy, 80 us a call against 90");
    }

    @Test
    void kindsOfCallAreKeptApart() {
        PathChooser chooser = learned(call(Operation.ALL_GATHER, MB, false), 100_000, 70_000);
        assertFalse(chooser.slotsNext(call(Operation.ALL_GATHER, MB, true)), "in place is another kind");
        assertFalse(chooser.slotsNext(call(Operation.ALL_TO_ALL, MB, false)), "so is another operation");
        assertFalse(chooser.slotsNext(call(Operation.ALL_GATHER, 4 * MB, false)), "and a size 4x as large");
        assertTrue(chooser.slotsNext(call(Operation.ALL_GATHER, MB + MB / 2, false)), "not one within 2x");
    }

    /** A chooser that has run {@code call} a run each way, taking the times given (nanoseconds). */
    private static PathChooser learned(Call call, long singleCopyNanos, long slotsNanos) {
        PathChooser chooser = new PathChooser();
        for (int i = 0; i < 2 * RUN; i++) {
            boolean slots = chooser.slotsNext(call);
            assertEquals(i >= RUN, slots, "the first runs, call " + i);
            chooser.record(call, slots, slots ? slotsNanos : singleCopyNanos);
        }
        return chooser;
    }

    @Test
    void logsItsFirstChoiceEachChangeAndEachTryWithTheMedians() {
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger(PathChooser.class.getName());
        java.util.List<String> lines = new java.util.ArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                lines.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level level = jul.getLevel();
        jul.setLevel(java.util.logging.Level.FINE);
        jul.addHandler(handler);
        try {
            Call call = call(Operation.ALL_GATHER, MB, false);
            PathChooser chooser = new PathChooser();
            for (int n = 0; n < 2 * RUN + PathChooser.FIRST_GAP + RUN + 1; n++) {
                boolean slots = chooser.slotsNext(call);
                // single copy at 100 us a call until the try, then 40: the try finds it faster again
                chooser.record(call, slots, slots ? 60_000 : n < 2 * RUN ? 100_000 : 40_000);
            }
            String kind = "allGather out of place, counts of 1 MiB to under 2 MiB";
            assertEquals(java.util.List.of(
                    kind + ", call 16: takes the slots (the slots 60.0 us/MB, reading 100.0; next try at call 48)",
                    kind + ", call 48: tries reading (reading 100.0 us/MB, the slots 60.0; next try at call 112)",
                    kind + ", call 56: takes reading (reading 40.0 us/MB, the slots 60.0; next try at call 88)"),
                    lines);
            lines.clear();
            Call small = call(Operation.BROADCAST, 128 << 10, true);
            assertFalse(learned(small, 50_000, 60_000).slotsNext(small), "single copy the faster: kept");
            assertEquals(java.util.List.of("broadcast in place, counts of 128 KiB to under 256 KiB, call 16: keeps "
                    + "reading (reading 400.0 us/MB, the slots 480.0; next try at call 48)"), lines);
        } finally {
            jul.removeHandler(handler);
            jul.setLevel(level);
        }
    }

    /** A call of {@code bytes} (a block, a broadcast's message) of float32; the chooser reads nothing else of it. */
    private static Call call(Operation op, long bytes, boolean inPlace) {
        return new Call(op, null, null, bytes / 4, DataType.FLOAT32, null, op.isRooted() ? 0 : -1, 0, inPlace);
    }
}
