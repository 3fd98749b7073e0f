package io.jcoll.exceptions;

/** The communicator was closed, or aborted by an earlier failure (the cause), and can run nothing more. */
public class CommunicatorClosedException extends JcollException {

    public CommunicatorClosedException(String operation, int rank, int peer, String message) {
        super(operation, rank, peer, message);
    }

    public CommunicatorClosedException(String operation, int rank, int peer, String message, Throwable cause) {
        super(operation, rank, peer, message, cause);
    }
}
