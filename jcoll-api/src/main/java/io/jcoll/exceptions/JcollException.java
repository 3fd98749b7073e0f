package io.jcoll.exceptions;

/**
 * Root of every error jcoll raises. Unchecked. Each names the operation, the
 * rank that raised it and, where one is involved, the peer rank; the message
 * starts with that context so a log line alone says where it happened.
 * <pre>{@code
 * try {
 *     comm.allReduce(HostBuffer.of(grads), ReduceOp.AVG);
 * } catch (InvalidArgumentException e) {
 *     // refused before any byte moved; the communicator is still usable
 * } catch (PeerFailureException | CollectiveTimeoutException e) {
 *     log.error("rank " + e.rank() + " lost peer " + e.peer() + " in " + e.operation() + ": " + e.detail());
 *     // the communicator is aborted: form a new one (or restart the job)
 * }
 * }</pre>
 */
public class JcollException extends RuntimeException {

    /** Marks a rank or peer that is not known or not involved. */
    public static final int NONE = -1;

    /** The message without its context. */
    private final String detail;
    /** The operation that failed. */
    private final String operation;
    /** The rank that raised it, or NONE. */
    private final int rank;
    /** The peer involved, or NONE. */
    private final int peer;

    /**
     * An exception with its context; the message is prefixed with it.
     *
     * @param operation the operation that failed, such as {@code allReduce}
     * @param rank      the rank raising it, or {@link JcollException#NONE}
     * @param peer      the peer rank involved, or {@link JcollException#NONE}
     * @param message   what went wrong and what to do
     */
    public JcollException(String operation, int rank, int peer, String message) {
        this(operation, rank, peer, message, null);
    }

    /**
     * An exception with its context; the message is prefixed with it.
     *
     * @param operation the operation that failed, such as {@code allReduce}
     * @param rank      the rank raising it, or {@link JcollException#NONE}
     * @param peer      the peer rank involved, or {@link JcollException#NONE}
     * @param message   what went wrong and what to do
     * @param cause     the underlying failure
     */
    public JcollException(String operation, int rank, int peer, String message, Throwable cause) {
        super(context(operation, rank, peer) + message, cause);
        this.detail = message;
        this.operation = operation;
        this.rank = rank;
        this.peer = peer;
    }

    private static String context(String operation, int rank, int peer) {
        StringBuilder b = new StringBuilder();
        b.append(operation == null ? "jcoll" : operation);
        if (rank != NONE) {
            b.append(" on rank ").append(rank);
        }
        if (peer != NONE) {
            b.append(" (peer rank ").append(peer).append(')');
        }
        return b.append(": ").toString();
    }

    /**
     * The message without the operation, rank and peer in front of it.
     *
     * @return what went wrong and what to do
     */
    public String detail() {
        return detail;
    }

    /** {@return the operation that failed, such as {@code allReduce} or {@code bootstrap}} */
    public String operation() {
        return operation;
    }

    /** {@return the rank that raised this, or {@link #NONE}} */
    public int rank() {
        return rank;
    }

    /** {@return the peer involved, or {@link #NONE}} */
    public int peer() {
        return peer;
    }
}
