package io.jcoll.exceptions;

/** A peer sent bytes that are not a valid jcoll frame (garbage, a wrong version, a length that does not fit). */
public class ProtocolException extends JcollException {

    public ProtocolException(String operation, int rank, int peer, String message) {
        super(operation, rank, peer, message);
    }

    public ProtocolException(String operation, int rank, int peer, String message, Throwable cause) {
        super(operation, rank, peer, message, cause);
    }
}
