package io.jcoll.spi;

import io.jcoll.Buffer;

/**
 * One rank's side of an open transport: executes validated calls, one at a
 * time, in the order the communicator issues them.
 */
public interface Transport extends AutoCloseable {

    /** The provider's name, such as {@code tcp}. */
    String name();

    /**
     * Null if this transport can move data in {@code buffer}, otherwise why it
     * cannot. Asked during validation, before any byte moves.
     */
    String unsupportedReason(Buffer buffer);

    /**
     * Runs one call to completion, or throws a {@link io.jcoll.exceptions.JcollException}.
     * A failure other than a rejected argument leaves the transport unusable:
     * the communicator aborts it.
     *
     * @param deadlineNanos {@link System#nanoTime()} by which the call must finish; or, to a transport that
     *                      {@link #timesFromFirstWait}, {@link #FROM_FIRST_WAIT}
     */
    void execute(Call call, long deadlineNanos);

    /**
     * A deadline that is no time: the call must finish within its communicator's timeout of its first wait that
     * blocks. Given only to a transport that {@link #timesFromFirstWait}, for a small call that would otherwise read
     * the clock only for its deadline.
     */
    long FROM_FIRST_WAIT = Long.MIN_VALUE;

    /**
     * Whether this transport takes {@link #FROM_FIRST_WAIT} for a deadline: it reads the clock anyway once a wait
     * has gone on a while, and knows the communicator's timeout.
     */
    default boolean timesFromFirstWait() {
        return false;
    }

    /**
     * How this transport will run {@code call}, in a few words ({@code ring}, {@code recursive doubling x2
     * channels}), for the flight recorder and JFR events; null where a library decides inside (NCCL, MPI). Asked
     * once per call as it is issued, so it must be cheap and must not touch the buffers.
     */
    default String algorithm(Call call) {
        return null;
    }

    /** What this transport really moves data over; see {@link io.jcoll.Communicator#network()}. */
    default io.jcoll.NetworkReport network() {
        return io.jcoll.NetworkReport.unknown(name() + " does not report its network");
    }

    /**
     * Whether this transport compares every collective's {@link Signature}
     * across ranks itself. Those that do not are audited through the store
     * under {@code JCOLL_DEBUG=check}.
     *
     * @return true if mismatched calls are detected without help
     */
    default boolean checksSignatures() {
        return false;
    }

    /**
     * Whether this transport fails a call soon by itself when a peer's process dies (a TCP connection closes
     * at once). Otherwise jcoll watches the rendezvous store, where a dead process's connection closes too,
     * and interrupts the call ({@link #interrupt}), so that the rank is named in milliseconds rather than at
     * JCOLL_TIMEOUT.
     */
    default boolean detectsDeadPeers() {
        return false;
    }

    /**
     * Whether {@link #enqueue} starts work without finishing it (a GPU stream),
     * so that asynchronous calls need no thread of their own.
     */
    default boolean enqueues() {
        return false;
    }

    /**
     * Starts a call and returns how to wait for it. Calls complete in the order
     * they were enqueued. The default runs the call to completion.
     */
    default Completion enqueue(Call call, long deadlineNanos) {
        execute(call, deadlineNanos);
        return Completion.DONE;
    }

    /** The end of an enqueued call. */
    interface Completion {
        Completion DONE = new Completion() {
            @Override public boolean isDone() { return true; }
            @Override public void await(long deadlineNanos) { }
        };

        boolean isDone();

        /** Waits until done, or throws (a timeout by the deadline, or the call's failure). */
        void await(long deadlineNanos);
    }

    /**
     * Forms this rank's side of a sub-communicator of this transport's group ({@link SplitRequest}). Every rank
     * of this group calls it at the same point of its order, those left out too, and none runs another call on
     * this transport meanwhile. The new transport is independent of this one: its calls never mix with this
     * one's, and either may be used from its own thread.
     *
     * @param request the agreed group
     * @return the new transport, or null for a rank left out
     */
    default Transport split(SplitRequest request) {
        throw new UnsupportedOperationException("the " + name() + " transport cannot form sub-communicators");
    }

    /**
     * Makes a call that another thread is running fail soon ({@link io.jcoll.Communicator#abort()} while a call
     * runs), telling the peers as {@link #abort} does. Called from any thread; the thread that ran the call
     * then calls {@link #abort} as it fails, so this must free nothing that call may still touch. The default
     * does what {@link #abort} does, for transports whose abort is safe from any thread.
     *
     * @param cause why, to tell the peers
     */
    default void interrupt(Throwable cause) {
        abort(cause);
    }

    /**
     * Tears the transport down after a failure, telling the peers (best effort)
     * so that they fail fast instead of waiting for their timeouts.
     */
    void abort(Throwable cause);

    /** Orderly shutdown; peers learn this rank left on purpose. */
    @Override
    void close();
}
