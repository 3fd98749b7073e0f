package io.jcoll.exceptions;

/** A peer closed its connection, died, or reported its own failure; {@link #peer()} is the rank that failed. */
public class PeerFailureException extends JcollException {

    public PeerFailureException(String operation, int rank, int peer, String message) {
        super(operation, rank, peer, message);
    }

    public PeerFailureException(String operation, int rank, int peer, String message, Throwable cause) {
        super(operation, rank, peer, message, cause);
    }
}
