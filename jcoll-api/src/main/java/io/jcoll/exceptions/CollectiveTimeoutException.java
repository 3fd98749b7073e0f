package io.jcoll.exceptions;

/** A wait outlasted the configured timeout ({@code JCOLL_TIMEOUT}); {@link #peer()} is the rank that stopped answering. */
public class CollectiveTimeoutException extends JcollException {

    public CollectiveTimeoutException(String operation, int rank, int peer, String message) {
        super(operation, rank, peer, message);
    }

    public CollectiveTimeoutException(String operation, int rank, int peer, String message, Throwable cause) {
        super(operation, rank, peer, message, cause);
    }
}
