package io.jcoll.nccl;

import io.jcoll.gpu.Nccl;

/**
 * Watches one NCCL communicator from its own thread, as PyTorch's watchdog
 * does: while a call is armed it checks NCCL's asynchronous error and the
 * call's deadline, and aborts the communicator when either goes wrong. That
 * unblocks a rank stuck inside NCCL (a blocking launch waiting on a dead
 * peer), which the stuck thread itself could never do. The waiting thread
 * then sees {@link #reason()} and raises the matching exception.
 */
final class Watchdog implements AutoCloseable {

    private static final long PERIOD_MILLIS = 50;

    private final Nccl nccl;
    private final Thread thread;
    private volatile long deadline;      // 0 while nothing is armed
    private volatile String reason;      // why the communicator was aborted, once it was
    private volatile boolean peerFailure;
    private volatile boolean stopped;

    Watchdog(Nccl nccl, int rank) {
        this.nccl = nccl;
        this.thread = new Thread(this::watch, "jcoll-nccl-watchdog-rank" + rank);
        thread.setDaemon(true);
        thread.start();
    }

    /** From now until {@link #disarm}, a call is in flight that must end by {@code deadlineNanos}. */
    void arm(long deadlineNanos) {
        deadline = deadlineNanos;
    }

    void disarm() {
        deadline = 0;
    }

    /**
     * Aborts the communicator now, from any thread ({@code comm.abort()} while a call runs): the thread waiting
     * on the call sees {@link #reason()} and fails, instead of taking the aborted kernels' exit for success.
     */
    void abortNow(String why) {
        if (reason == null) {
            reason = why;
        }
        nccl.abort();
    }

    /** Null while healthy; otherwise why the communicator was aborted. */
    String reason() {
        return reason;
    }

    /** Whether the abort came from NCCL's own error report (a peer or network failure) rather than the clock. */
    boolean peerFailure() {
        return peerFailure;
    }

    private void watch() {
        while (!stopped && reason == null) {
            try {
                Thread.sleep(PERIOD_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            long armed = deadline;
            if (armed == 0 || stopped) {
                continue;
            }
            try {
                int error = nccl.asyncError();
                if (error != 0 && error != 7 /* ncclInProgress */) {
                    peerFailure = true;
                    reason = "NCCL reported error " + error + ": " + nccl.errorString(error) + "; a peer probably failed";
                    nccl.abort();
                } else if (System.nanoTime() - armed > 0) {
                    reason = "no progress within JCOLL_TIMEOUT (a peer may have stopped, died or be in another "
                            + "operation); the NCCL communicator was aborted";
                    nccl.abort();
                }
            } catch (RuntimeException e) {
                if (stopped) {
                    return; // the owner aborted or closed the communicator under this check
                }
                reason = "checking the NCCL communicator failed: " + e.getMessage();
                nccl.abort();
            }
        }
    }

    /**
     * Stops watching, and waits (briefly) until this thread has left NCCL, so that the owner's abort or
     * destroy does not race a check. An abort in progress here is waited for by the owner's own abort or close,
     * which take the communicator's lock.
     */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(2 * PERIOD_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
