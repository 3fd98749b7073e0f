package io.jcoll.internal;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.TransportInfo;
import io.jcoll.spi.Call;
import io.jcoll.spi.Transport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deadline a blocking call from any thread hands its transport: a small call that runs at once reads no clock
 * where the transport times its waits from the first that blocks ({@link Transport#FROM_FIRST_WAIT}); a large one,
 * one on a transport that does not, and one that waited behind another thread's call get the communicator's timeout
 * from the moment they were free to run.
 */
class CallDeadlineTest {

    private static final TransportInfo INFO = new TransportInfo("recording", "recording", "test", List.of());
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Records each call's deadline; a call may be held inside the transport until released. */
    static final class DeadlineRecording implements Transport {
        final boolean fromFirstWait;
        final List<Long> deadlines = new ArrayList<>();
        volatile CountDownLatch entered;
        volatile CountDownLatch release;

        DeadlineRecording(boolean fromFirstWait) {
            this.fromFirstWait = fromFirstWait;
        }

        @Override public String name() { return "recording"; }
        @Override public String unsupportedReason(io.jcoll.Buffer buffer) { return null; }
        @Override public void abort(Throwable cause) { }
        @Override public void close() { }
        @Override public boolean timesFromFirstWait() { return fromFirstWait; }

        @Override
        public void execute(Call call, long deadlineNanos) {
            synchronized (deadlines) {
                deadlines.add(deadlineNanos);
            }
            CountDownLatch held = release;
            if (held != null) {
                release = null;
                entered.countDown();
                try {
                    held.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        long last() {
            synchronized (deadlines) {
                return deadlines.get(deadlines.size() - 1);
            }
        }
    }

    private static Communicator communicator(Transport transport) {
        return new CommunicatorImpl(0, 2, 0, 0, INFO, TIMEOUT, transport, () -> { }, null);
    }

    /** That {@code deadline} is the timeout from a moment between {@code before} and {@code after}. */
    private static void assertTimed(long before, long deadline, long after, String what) {
        long timeout = TIMEOUT.toNanos();
        assertTrue(deadline >= before + timeout && deadline <= after + timeout,
                what + ": deadline " + (deadline - before - timeout) + " ns past the timeout from the call's issue");
    }

    @Test
    void aSmallCallThatRunsAtOnceReadsNoClockWhereTheTransportTimesItsWaits() {
        DeadlineRecording transport = new DeadlineRecording(true);
        try (Communicator comm = communicator(transport)) {
            comm.allReduce(HostBuffer.of(new float[2]), ReduceOp.SUM);
            assertEquals(Transport.FROM_FIRST_WAIT, transport.last(), "an 8-byte all-reduce");
            comm.broadcast(HostBuffer.of(new byte[0]), 0);
            assertEquals(Transport.FROM_FIRST_WAIT, transport.last(), "an empty broadcast");

            // past the recorder's small calls (64 KiB a rank): timed from its issue
            long before = System.nanoTime();
            comm.allReduce(HostBuffer.of(new float[16_411]), ReduceOp.SUM);
            assertTimed(before, transport.last(), System.nanoTime(), "a 65,644-byte all-reduce");
        }
    }

    @Test
    void aTransportThatDoesNotTimeItsWaitsGetsEveryCallsDeadline() {
        DeadlineRecording transport = new DeadlineRecording(false);
        try (Communicator comm = communicator(transport)) {
            long before = System.nanoTime();
            comm.allReduce(HostBuffer.of(new float[1]), ReduceOp.SUM);
            assertTimed(before, transport.last(), System.nanoTime(), "a 4-byte all-reduce");
        }
    }

    @Test
    void aSmallCallThatWaitedBehindAnotherThreadsIsTimedFromWhenItWasFree() throws InterruptedException {
        DeadlineRecording transport = new DeadlineRecording(true);
        try (Communicator comm = communicator(transport)) {
            CountDownLatch release = new CountDownLatch(1);
            transport.entered = new CountDownLatch(1);
            transport.release = release;
            Thread first = new Thread(() -> comm.allReduce(HostBuffer.of(new float[3]), ReduceOp.SUM), "first");
            first.start();
            assertTrue(transport.entered.await(30, TimeUnit.SECONDS), "the first call reached the transport");

            long[] window = new long[2];
            Thread second = new Thread(() -> {
                window[0] = System.nanoTime();
                comm.allReduce(HostBuffer.of(new float[5]), ReduceOp.MAX);
                window[1] = System.nanoTime();
            }, "second");
            second.start();
            Thread.sleep(50); // the second call is issued and waits for the run lock
            assertTrue(second.isAlive(), "the second call waits for the first");
            release.countDown();
            first.join(TimeUnit.SECONDS.toMillis(30));
            second.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(first.isAlive() || second.isAlive(), "both calls ended");

            assertEquals(2, transport.deadlines.size());
            assertEquals(Transport.FROM_FIRST_WAIT, transport.deadlines.get(0), "the first ran at once");
            assertTimed(window[0], transport.deadlines.get(1), window[1], "the call that waited");
        }
    }
}
