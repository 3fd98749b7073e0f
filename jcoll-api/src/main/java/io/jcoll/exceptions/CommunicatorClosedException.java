package io.jcoll.exceptions;

/** The communicator was closed, or aborted by an earlier failure (the cause), and can run nothing more. */
public class CommunicatorClosedException extends JcollException {

    /**
     * An exception with its context; the message is prefixed with it.
     *
     * @param operation the operation that failed, such as {@code allReduce}
     * @param rank      the rank raising it, or {@link JcollException#NONE}
     * @param peer      the peer rank involved, or {@link JcollException#NONE}
     * @param message   what went wrong and what to do
     */
    public CommunicatorClosedException(String operation, int rank, int peer, String message) {
        super(operation, rank, peer, message);
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
    public CommunicatorClosedException(String operation, int rank, int peer, String message, Throwable cause) {
        super(operation, rank, peer, message, cause);
    }
}
