package io.jcoll;

import java.time.Duration;

/**
 * The handle of an asynchronous operation. Operations complete in the order
 * they were issued on their communicator.
 * <pre>{@code
 * Request r = comm.allReduceAsync(grads, grads, n, ReduceOp.SUM);
 * overlapWithCompute();
 * r.await();                      // throws what the operation failed with
 * }</pre>
 */
public interface Request {

    /** {@return whether the operation has finished (successfully or not); never blocks} */
    boolean isDone();

    /**
     * Waits up to the communicator's timeout for completion.
     *
     * @throws io.jcoll.exceptions.JcollException the operation's own failure, or a
     *         {@link io.jcoll.exceptions.CollectiveTimeoutException} if it did not finish in time
     */
    void await();

    /**
     * Waits up to {@code timeout}.
     *
     * @return true if the operation completed, false if it is still running
     * @throws io.jcoll.exceptions.JcollException the operation's own failure
     * @param timeout how long to wait at most
     */
    boolean await(Duration timeout);
}
