package io.jcoll.exceptions;

/** An argument was rejected before any byte moved: a size, a buffer, a root or a peer. The communicator stays usable. */
public class InvalidArgumentException extends JcollException {

    public InvalidArgumentException(String operation, int rank, int peer, String message) {
        super(operation, rank, peer, message);
    }

    public InvalidArgumentException(String operation, int rank, int peer, String message, Throwable cause) {
        super(operation, rank, peer, message, cause);
    }
}
