package io.jcoll.bench;

import io.jcoll.Buffer;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.TransportInfo;
import io.jcoll.internal.CommunicatorImpl;
import io.jcoll.spi.Call;
import io.jcoll.spi.Transport;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What the communicator layer itself costs per call: validation, ordering, the
 * request handle, with a transport that queues work and finishes at once, as a
 * GPU stream would look to the caller. Prints nanoseconds and heap bytes per
 * call, blocking and asynchronous, after the JIT has compiled the path.
 * {@code java -cp "$(./jcoll classpath)" io.jcoll.bench.CallOverhead}
 */
public final class CallOverhead {

    private static final int CALLS = 1_000_000;

    private CallOverhead() {
    }

    /** Accepts every call and finishes it at once, like an enqueue whose work is free. */
    private static final class InstantQueue implements Transport {
        @Override public String name() { return "instant"; }
        @Override public String unsupportedReason(Buffer buffer) { return null; }
        @Override public void execute(Call call, long deadlineNanos) { }
        @Override public boolean enqueues() { return true; }
        @Override public Completion enqueue(Call call, long deadlineNanos) { return Completion.DONE; }
        @Override public void abort(Throwable cause) { }
        @Override public void close() { }
    }

    public static void main(String[] args) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (CommunicatorImpl comm = new CommunicatorImpl(0, 1, 0, 0, new TransportInfo("instant", "instant", "benchmark",
                List.of()), Duration.ofMinutes(1), new InstantQueue(), null, null)) {
            HostBuffer send = HostBuffer.of(new float[2]);
            HostBuffer recv = HostBuffer.of(new float[2]);
            System.out.println("round  blocking ns/call  blocking B/call  async ns/call  async B/call");
            for (int round = 1; round <= 5; round++) { // the first rounds include compilation
                long a0 = threads.getCurrentThreadAllocatedBytes();
                long t0 = System.nanoTime();
                for (int i = 0; i < CALLS; i++) {
                    comm.allReduce(send, recv, 2, ReduceOp.SUM);
                }
                long t1 = System.nanoTime();
                long a1 = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < CALLS; i++) {
                    comm.allReduceAsync(send, recv, 2, ReduceOp.SUM).await();
                }
                long t2 = System.nanoTime();
                long a2 = threads.getCurrentThreadAllocatedBytes();
                System.out.printf(Locale.ROOT, "%5d  %16.1f  %15.1f  %13.1f  %12.1f%n", round, (t1 - t0) / (double) CALLS,
                        (a1 - a0) / (double) CALLS, (t2 - t1) / (double) CALLS, (a2 - a1) / (double) CALLS);
            }
        }
    }
}
