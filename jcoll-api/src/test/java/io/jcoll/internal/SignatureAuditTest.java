package io.jcoll.internal;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.bootstrap.MemoryStore;
import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.Settings;
import io.jcoll.spi.Transport;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** JCOLL_DEBUG=check: ranks compare signatures through the store before a transport that cannot check launches. */
class SignatureAuditTest {

    private static final int RANKS = 3;

    /** A transport that only counts what it is asked to run, as NCCL would run it unchecked. */
    static final class Unchecked implements Transport {
        final AtomicInteger launched = new AtomicInteger();
        @Override public String name() { return "unchecked"; }
        @Override public String unsupportedReason(io.jcoll.Buffer buffer) { return null; }
        @Override public void execute(Call call, long deadlineNanos) { launched.incrementAndGet(); }
        @Override public void abort(Throwable cause) { }
        @Override public void close() { }
    }

    static Call allReduce(long count, long step) {
        return new Call(Operation.ALL_REDUCE, null, null, count, DataType.FLOAT32, ReduceOp.SUM, -1, step, false);
    }

    /** Each rank runs {@code steps} calls, the call of step s on rank r being {@code call.apply(r)[s]}. */
    static List<Object> run(int steps, IntFunction<Call[]> callsOf, MemoryStore store, Unchecked[] inner,
                            Duration timeout) {
        for (int r = 0; r < RANKS; r++) {
            inner[r] = new Unchecked();
        }
        List<Object> out = new ArrayList<>();
        for (Ranks.Outcome<Object> o : Ranks.outcomes(RANKS, Duration.ofSeconds(30), rank -> {
            SignatureAudit audit = new SignatureAudit(inner[rank], store, rank, RANKS);
            Call[] calls = callsOf.apply(rank);
            for (int s = 0; s < Math.min(steps, calls.length); s++) {
                audit.execute(calls[s], System.nanoTime() + timeout.toNanos());
            }
            return null;
        })) {
            out.add(o.error());
        }
        return out;
    }

    @Test
    void agreeingCallsRunAndLeaveOnlyTheLastStepsKeys() {
        MemoryStore store = new MemoryStore();
        Unchecked[] inner = new Unchecked[RANKS];
        List<Object> results = run(50, r -> {
            Call[] calls = new Call[50];
            for (int s = 0; s < calls.length; s++) {
                calls[s] = allReduce(1 + s % 7, s);
            }
            return calls;
        }, store, inner, Duration.ofSeconds(10));
        for (int r = 0; r < RANKS; r++) {
            assertNull(results.get(r));
            assertEquals(50, inner[r].launched.get());
            assertTrue(store.get("check/49/" + r, Duration.ZERO).isPresent());
            assertFalse(store.get("check/48/" + r, Duration.ZERO).isPresent(), "step 48's key was not deleted");
        }
    }

    @Test
    void aRankInAnotherOperationFailsEveryRankBeforeLaunchNamingWhoDoesWhat() {
        Unchecked[] inner = new Unchecked[RANKS];
        List<Object> results = run(2, r -> new Call[] {allReduce(10, 0), r == 1
                ? new Call(Operation.BROADCAST, null, null, 10, DataType.FLOAT32, null, 0, 1, false)
                : allReduce(10, 1)}, new MemoryStore(), inner, Duration.ofSeconds(10));
        for (int r = 0; r < RANKS; r++) {
            CollectiveMismatchException e = assertInstanceOf(CollectiveMismatchException.class, results.get(r));
            assertTrue(e.getMessage().contains("ranks [0, 2] are in allReduce #1 (10 x float32, sum); "
                    + "rank 1 is in broadcast #1 (10 x float32, root 0)"), e.getMessage());
            assertEquals(1, inner[r].launched.get(), "the mismatched call was launched on rank " + r);
        }
    }

    /** An uneven all-to-all whose ranks count differently: every rank names the same pair before launching. */
    @Test
    void unevenCountsThatDisagreeFailEveryRankNamingThePair() {
        Unchecked[] inner = new Unchecked[RANKS];
        List<Object> results = run(1, r -> {
            long[] send = {1, 2, 3};
            long[] recv = {r + 1L, r + 1L, r + 1L};   // what rank s sends rank r is s's sendCounts[r] = r + 1...
            if (r == 2) {
                recv[0] = 7;                          // ...but rank 2 expects 7 from rank 0
            }
            return new Call[] {allToAllV(send, recv)};
        }, new MemoryStore(), inner, Duration.ofSeconds(10));
        for (int r = 0; r < RANKS; r++) {
            CollectiveMismatchException e = assertInstanceOf(CollectiveMismatchException.class, results.get(r));
            assertTrue(e.getMessage().contains("rank 0 sends rank 2 3 elements but rank 2 expects 7 from it"),
                    e.getMessage());
            assertEquals(0, inner[r].launched.get(), "the call was launched on rank " + r);
        }
    }

    static Call allToAllV(long[] send, long[] recv) {
        return new Call(Operation.ALL_TO_ALL_V, null, null, 0, DataType.FLOAT32, null, -1, 0, false,
                new io.jcoll.spi.Vectors(send, io.jcoll.spi.Vectors.packed(send), recv, io.jcoll.spi.Vectors.packed(recv)),
                List.of());
    }

    @Test
    void aRankThatNeverArrivesIsNamedWhenTheDeadlinePasses() {
        Unchecked[] inner = new Unchecked[RANKS];
        List<Object> results = run(2, r -> r == 2 ? new Call[] {allReduce(5, 0)}
                : new Call[] {allReduce(5, 0), allReduce(5, 1)}, new MemoryStore(), inner, Duration.ofMillis(500));
        assertNull(results.get(2));
        for (int r = 0; r < 2; r++) {
            CollectiveTimeoutException e = assertInstanceOf(CollectiveTimeoutException.class, results.get(r));
            assertEquals(2, e.peer(), e.getMessage());
            assertTrue(e.getMessage().contains("rank 2 did not reach collective #1"), e.getMessage());
        }
    }

    @Test
    void requestedOnlyWhenJcollDebugListsCheck() {
        assertTrue(SignatureAudit.requested(Settings.of(Map.of("JCOLL_DEBUG", "check"))));
        assertTrue(SignatureAudit.requested(Settings.of(Map.of("JCOLL_DEBUG", "trace,check"))));
        assertFalse(SignatureAudit.requested(Settings.of(Map.of("JCOLL_DEBUG", "checks"))));
        assertFalse(SignatureAudit.requested(Settings.of(Map.of())));
    }
}
