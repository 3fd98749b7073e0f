package io.jcoll.exceptions;

/** Forming the communicator failed: configuration, rendezvous, authentication or a rank that never arrived. */
public class BootstrapException extends JcollException {

    public BootstrapException(String operation, int rank, int peer, String message) {
        super(operation, rank, peer, message);
    }

    public BootstrapException(String operation, int rank, int peer, String message, Throwable cause) {
        super(operation, rank, peer, message, cause);
    }
}
