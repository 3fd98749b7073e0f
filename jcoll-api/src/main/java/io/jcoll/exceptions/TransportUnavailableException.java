package io.jcoll.exceptions;

/** The requested transport cannot run here; the message says why. */
public class TransportUnavailableException extends BootstrapException {

    public TransportUnavailableException(String operation, int rank, int peer, String message) {
        super(operation, rank, peer, message);
    }

    public TransportUnavailableException(String operation, int rank, int peer, String message, Throwable cause) {
        super(operation, rank, peer, message, cause);
    }
}
