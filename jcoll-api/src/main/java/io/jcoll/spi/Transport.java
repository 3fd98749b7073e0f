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
     * @param deadlineNanos {@link System#nanoTime()} by which the call must finish
     */
    void execute(Call call, long deadlineNanos);

    /**
     * Tears the transport down after a failure, telling the peers (best effort)
     * so that they fail fast instead of waiting for their timeouts.
     */
    void abort(Throwable cause);

    /** Orderly shutdown; peers learn this rank left on purpose. */
    @Override
    void close();
}
