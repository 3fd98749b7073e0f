package io.jcoll.exceptions;

/** Ranks called different operations, counts, types, reduce ops or roots at the same step. */
public class CollectiveMismatchException extends JcollException {

    public CollectiveMismatchException(String operation, int rank, int peer, String message) {
        super(operation, rank, peer, message);
    }

    public CollectiveMismatchException(String operation, int rank, int peer, String message, Throwable cause) {
        super(operation, rank, peer, message, cause);
    }
}
