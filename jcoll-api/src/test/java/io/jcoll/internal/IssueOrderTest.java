package io.jcoll.internal;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.Request;
import io.jcoll.TransportInfo;
import io.jcoll.spi.Call;
import io.jcoll.spi.Transport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * "Operations run in issue order" (the {@link Communicator} contract) when several threads issue on one
 * communicator, blocking and asynchronous calls mixed: the transport must see the collectives' sequence numbers
 * in order, since every rank numbers its calls as it issues them and peers compare them call by call.
 */
class IssueOrderTest {

    private static final TransportInfo INFO = new TransportInfo("recording", "recording", "test", List.of());

    /** Records each collective's sequence number as it runs, taking a little time, as a call does. */
    static final class Recording implements Transport {
        final List<Long> ran = new ArrayList<>();

        @Override public String name() { return "recording"; }
        @Override public String unsupportedReason(io.jcoll.Buffer buffer) { return null; }
        @Override public void abort(Throwable cause) { }
        @Override public void close() { }

        @Override
        public void execute(Call call, long deadlineNanos) {
            synchronized (ran) {
                ran.add(call.sequence());
            }
            long until = System.nanoTime() + 2_000;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void blockingAndAsynchronousCallsFromSeveralThreadsRunInIssueOrder() throws InterruptedException {
        Recording transport = new Recording();
        int threads = 4;
        int callsEach = 3_000;
        try (Communicator comm = new CommunicatorImpl(0, 2, 0, 0, INFO, Duration.ofSeconds(60), transport, () -> { },
                null)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> all = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                all.add(new Thread(() -> {
                    HostBuffer data = HostBuffer.of(new float[3]);
                    try {
                        start.await();
                        Request last = null;
                        for (int i = 0; i < callsEach; i++) {
                            if ((i + id) % 3 == 0) {
                                last = comm.allReduceAsync(data, data, 3, ReduceOp.SUM);
                            } else {
                                comm.allReduce(data, ReduceOp.SUM);
                            }
                        }
                        if (last != null) {
                            last.await();
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "issuer-" + t));
            }
            all.forEach(Thread::start);
            start.countDown();
            for (Thread t : all) {
                t.join(TimeUnit.MINUTES.toMillis(2));
                assertFalse(t.isAlive(), t.getName() + " still issuing after 2 minutes");
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
        List<Long> ran;
        synchronized (transport.ran) {
            ran = new ArrayList<>(transport.ran);
        }
        assertEquals(threads * callsEach, ran.size(), "every call ran once");
        for (int i = 0; i < ran.size(); i++) {
            if (ran.get(i) != i) {
                throw new AssertionError("the transport ran call #" + ran.get(i) + " in place " + i + " (around it: "
                        + ran.subList(Math.max(0, i - 3), Math.min(ran.size(), i + 4)) + ")");
            }
        }
    }
}
