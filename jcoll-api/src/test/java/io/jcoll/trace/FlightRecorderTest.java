package io.jcoll.trace;

import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.Signature;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ring keeps the last calls with their states, in order, wraps, and records nothing when off. */
class FlightRecorderTest {

    private static Call allReduce(long sequence, long count) {
        HostBuffer b = HostBuffer.of(new float[(int) count]);
        return new Call(Operation.ALL_REDUCE, b, b, count, DataType.FLOAT32, ReduceOp.SUM, -1, sequence, true);
    }

    private static Call send(int peer, long count) {
        return new Call(Operation.SEND, HostBuffer.of(new float[(int) count]), null, count, DataType.FLOAT32, null,
                peer, -1, false);
    }

    @Test
    void callsAreKeptWithTheirStatesInIssueOrder() {
        FlightRecorder r = new FlightRecorder(16);
        long a = r.issued(allReduce(0, 7), c -> "ring");
        long b = r.issued(send(3, 5), c -> null);
        long c = r.issued(allReduce(1, 13), c2 -> "recursive doubling");
        r.started(a, 1);
        r.ended(a, 1, true);
        r.started(b, 1);
        r.ended(b, 1, false);
        r.started(c, 1);
        List<FlightRecorder.Entry> e = r.entries();
        assertEquals(3, e.size());
        assertEquals(List.of(0L, 1L, 2L), e.stream().map(FlightRecorder.Entry::id).toList());
        assertEquals(FlightRecorder.State.COMPLETED, e.get(0).state());
        assertEquals(FlightRecorder.State.FAILED, e.get(1).state());
        assertEquals(FlightRecorder.State.STARTED, e.get(2).state());
        assertEquals("allReduce #0 (7 x float32, sum)", e.get(0).signature().describe());
        assertEquals(3, e.get(1).peer());
        assertEquals(20, e.get(1).bytes());
        assertNull(e.get(1).algorithm());
        assertEquals("recursive doubling", e.get(2).algorithm());
        assertTrue(e.get(0).startedNanos() >= e.get(0).issuedNanos());
        assertEquals(0, e.get(0).endedNanos(), "a small call that completed: ended, without the clock read");
        assertTrue(e.get(1).endedNanos() >= e.get(1).startedNanos(), "a failed call is timed");
        assertEquals(0, e.get(2).endedNanos(), "not ended");
        r.ended(a, 1, false);
        assertEquals(FlightRecorder.State.COMPLETED, r.entries().get(0).state(), "an ended call stays as it ended");
    }

    /**
     * Each entry gives back every field of its call as the call has it: every operation, type and reduce op (and
     * none), roots and peers from 0 to a large rank, counts and sequence numbers to the top of a long; and marking
     * its start and end changes only its state and times.
     */
    @Test
    void everyFieldOfEveryKindOfCallComesBackAsItWent() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        List<Call> calls = new java.util.ArrayList<>();
        List<ReduceOp> reduceOps = new java.util.ArrayList<>(List.of(ReduceOp.values()));
        reduceOps.add(null);
        for (Operation op : Operation.values()) {
            if (op == Operation.GROUP || op == Operation.ALL_TO_ALL_V) {
                continue; // recorded as their calls; an uneven all-to-all's count is its own (tested through the API)
            }
            for (DataType type : DataType.values()) {
                ReduceOp reduceOp = reduceOps.get(random.nextInt(reduceOps.size()));
                boolean hasRoot = op.isRooted() || !op.isCollective(); // a root, or a send's or recv's peer
                int root = !hasRoot ? -1 : random.nextInt(2) == 0 ? 0 : Integer.MAX_VALUE - 1;
                long count = random.nextInt(3) == 0 ? 0 : random.nextLong(1, Long.MAX_VALUE / 64);
                long sequence = op.isCollective() ? random.nextLong(0, Long.MAX_VALUE) : -1;
                calls.add(new Call(op, null, null, count, type, reduceOp, root, sequence, false));
            }
        }
        FlightRecorder r = new FlightRecorder(calls.size());
        for (Call call : calls) {
            r.issued(call, c -> null, 1_000);
        }
        List<FlightRecorder.Entry> entries = r.entries();
        assertEquals(calls.size(), entries.size());
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            FlightRecorder.Entry e = entries.get(i);
            String what = call.toString();
            assertEquals(call.operation(), e.operation(), what);
            assertEquals(call.type().ordinal(), e.signature().type(), what);
            assertEquals(call.reduceOp() == null ? -1 : call.reduceOp().ordinal(), e.signature().reduceOp(), what);
            assertEquals(call.operation().isRooted() ? call.root() : -1, e.signature().root(), what);
            assertEquals(call.operation().isCollective() ? -1 : call.root(), e.peer(), what);
            assertEquals(call.count(), e.signature().count(), what);
            assertEquals(call.sequence(), e.signature().sequence(), what);
            assertEquals(call.bytes(), e.bytes(), what);
            assertEquals(FlightRecorder.State.ISSUED, e.state(), what);
            assertEquals(1_000, e.issuedNanos(), what);
        }
        for (FlightRecorder.Entry e : entries) {
            r.started(e.id(), 1, 2_000 + e.id());
            r.ended(e.id(), 1, e.id() % 2 == 0);
        }
        for (FlightRecorder.Entry e : r.entries()) {
            assertEquals(e.id() % 2 == 0 ? FlightRecorder.State.COMPLETED : FlightRecorder.State.FAILED, e.state());
            assertEquals(2_000 + e.id(), e.startedNanos(), "the start as marked");
            assertEquals(Signature.of(calls.get((int) e.id())).type(), e.signature().type(), "the call as it was");
        }
    }

    /** Calls larger than {@link FlightRecorder#UNTIMED_BYTES} a rank are timed to their end, the small ones not. */
    @Test
    void onlyCallsBeyondTheUntimedSizeRecordTheirEnd() {
        FlightRecorder r = new FlightRecorder(8);
        int atLimit = (int) (FlightRecorder.UNTIMED_BYTES / Float.BYTES);
        long small = r.issued(allReduce(0, atLimit), c -> "ring");
        long large = r.issued(allReduce(1, atLimit + 1), c -> "ring");
        for (long id : new long[] {small, large}) {
            r.started(id, 1);
            r.ended(id, 1, true);
        }
        List<FlightRecorder.Entry> e = r.entries();
        assertEquals(FlightRecorder.UNTIMED_BYTES, e.get(0).bytes());
        assertEquals(FlightRecorder.State.COMPLETED, e.get(0).state());
        assertEquals(0, e.get(0).endedNanos());
        assertEquals(FlightRecorder.State.COMPLETED, e.get(1).state());
        assertTrue(e.get(1).endedNanos() >= e.get(1).startedNanos() && e.get(1).startedNanos() > 0);
    }

    /** A communicator reads the clock once for an inline call: its issue and start are the same moment. */
    @Test
    void timesTheCallerReadAreKept() {
        FlightRecorder r = new FlightRecorder(4);
        long a = r.issued(allReduce(0, 3), c -> "ring", 1_000);
        r.started(a, 1, 1_000);
        long b = r.issued(allReduce(1, 3), c -> "ring", 2_000);
        r.started(b, 1, 2_500); // a queued call starts after it was issued
        FlightRecorder.Entry first = r.entries().get(0);
        FlightRecorder.Entry second = r.entries().get(1);
        assertEquals(1_000, first.issuedNanos());
        assertEquals(1_000, first.startedNanos());
        assertEquals(2_000, second.issuedNanos());
        assertEquals(2_500, second.startedNanos());
        assertEquals(FlightRecorder.State.STARTED, second.state());
        FlightRecorder off = new FlightRecorder(0);
        assertEquals(-1, off.issued(allReduce(0, 3), c -> "ring", 1_000), "a recorder that is off records nothing");
        off.started(-1, 1, 1_000);
        assertTrue(off.entries().isEmpty());
    }

    /**
     * An inline call that nothing can come before is issued and started at once: one row's writes, untimed (0) for a
     * small call; its end then marks the same row, and a later start mark changes nothing of a call that has ended.
     */
    @Test
    void aCallIssuedAsItStartsIsRecordedStarted() {
        FlightRecorder r = new FlightRecorder(4);
        long timed = r.issuedStarted(allReduce(0, 3), c -> null, 7_000);
        long untimed = r.issuedStarted(send(1, 3), c -> "ring", 0);
        FlightRecorder.Entry first = r.entries().get(0);
        assertEquals(FlightRecorder.State.STARTED, first.state());
        assertEquals(7_000, first.issuedNanos());
        assertEquals(7_000, first.startedNanos());
        assertNull(first.algorithm());
        FlightRecorder.Entry second = r.entries().get(1);
        assertEquals(FlightRecorder.State.STARTED, second.state());
        assertEquals(0, second.issuedNanos());
        assertEquals(0, second.startedNanos());
        assertEquals(1, second.peer());
        assertEquals("ring", second.algorithm());
        r.ended(untimed, 1, true);
        r.ended(timed, 1, false);
        r.started(timed, 1, 9_000); // late: the call has ended
        assertEquals(FlightRecorder.State.FAILED, r.entries().get(0).state());
        assertEquals(7_000, r.entries().get(0).startedNanos());
        assertTrue(r.entries().get(0).endedNanos() > 0, "a failed call's end is timed");
        assertEquals(FlightRecorder.State.COMPLETED, r.entries().get(1).state());
        assertEquals(0, r.entries().get(1).endedNanos());
        assertEquals(-1, new FlightRecorder(0).issuedStarted(allReduce(0, 3), c -> "ring", 1), "off: nothing kept");
    }

    @Test
    void aGroupIsRecordedAsEachOfItsCalls() {
        FlightRecorder r = new FlightRecorder(8);
        Call group = Call.group(List.of(allReduce(4, 2), send(1, 3), allReduce(5, 2)));
        long first = r.issued(group, c -> c.operation().label() + "-way");
        assertEquals(3, FlightRecorder.calls(group));
        r.started(first, FlightRecorder.calls(group));
        r.ended(first, FlightRecorder.calls(group), true);
        List<FlightRecorder.Entry> e = r.entries();
        assertEquals(List.of(4L, -1L, 5L), e.stream().map(x -> x.signature().sequence()).toList());
        assertTrue(e.stream().allMatch(x -> x.state() == FlightRecorder.State.COMPLETED));
        assertTrue(e.stream().allMatch(x -> x.endedNanos() >= x.startedNanos() && x.startedNanos() > 0),
                "a group of small calls is timed to its end");
        assertEquals("send-way", e.get(1).algorithm());
    }

    /** The ring is rounded up to a power of two; what it gives back is the last {@code capacity} calls, exactly. */
    @Test
    void everyCapacityGivesBackItsLastCallsInOrder() {
        for (int capacity : new int[] {1, 2, 3, 5, 8, 9, 1000, 1024, 1025}) {
            FlightRecorder r = new FlightRecorder(capacity);
            int calls = 3 * capacity + 1;
            for (int s = 0; s < calls; s++) {
                long id = r.issued(allReduce(s, 1), c -> null);
                r.started(id, 1);
                r.ended(id, 1, s % 2 == 0);
            }
            List<FlightRecorder.Entry> e = r.entries();
            assertEquals(capacity, e.size(), "capacity " + capacity);
            for (int i = 0; i < capacity; i++) {
                long expected = calls - capacity + i;
                assertEquals(expected, e.get(i).id(), "capacity " + capacity);
                assertEquals(expected, e.get(i).signature().sequence(), "capacity " + capacity);
                assertEquals(expected % 2 == 0 ? FlightRecorder.State.COMPLETED : FlightRecorder.State.FAILED,
                        e.get(i).state(), "capacity " + capacity);
            }
        }
    }

    @Test
    void theRingKeepsTheLastCallsAndIgnoresLateMarksOfDroppedOnes() {
        FlightRecorder r = new FlightRecorder(5);
        long first = r.issued(allReduce(0, 1), c -> null);
        for (int s = 1; s < 12; s++) {
            r.ended(r.issued(allReduce(s, 1), c -> null), 1, true);
        }
        r.ended(first, 1, true); // its slot (of a ring of 8, 5 rounded up) now holds call 8: left alone
        List<FlightRecorder.Entry> e = r.entries();
        assertEquals(12, r.recorded());
        assertEquals(List.of(7L, 8L, 9L, 10L, 11L), e.stream().map(FlightRecorder.Entry::id).toList());
        assertEquals(List.of(7L, 8L, 9L, 10L, 11L), e.stream().map(x -> x.signature().sequence()).toList());
    }

    @Test
    void capacityZeroRecordsNothing() {
        FlightRecorder r = new FlightRecorder(0);
        long id = r.issued(allReduce(0, 1), c -> {
            throw new AssertionError("not asked when off");
        });
        assertEquals(-1, id);
        r.started(id, 1);
        r.ended(id, 1, true);
        assertEquals(List.of(), r.entries());
        assertEquals(0, r.recorded());
    }

    @Test
    void settingsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new FlightRecorder(-1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TraceConfig.from(
                io.jcoll.spi.Settings.of(java.util.Map.of("JCOLL_TRACE_BUFFER", "-3"))));
        assertTrue(e.getMessage().contains("JCOLL_TRACE_BUFFER=-3"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TraceConfig.from(
                io.jcoll.spi.Settings.of(java.util.Map.of("JCOLL_TRACE_BUFFER", "lots"))));
        assertTrue(e.getMessage().contains("JCOLL_TRACE_BUFFER"), e.getMessage());
        TraceConfig d = TraceConfig.from(io.jcoll.spi.Settings.of(java.util.Map.of()));
        assertEquals(FlightRecorder.DEFAULT_CAPACITY, d.capacity());
        assertEquals(java.nio.file.Path.of("."), d.dir());
    }
}
