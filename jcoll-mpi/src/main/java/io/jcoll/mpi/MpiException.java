package io.jcoll.mpi;

import io.jcoll.exceptions.JcollException;

/** An MPI call that returned an error code, with MPI's own text for it. */
final class MpiException extends JcollException {

    final int code;

    MpiException(String operation, int rank, String message, int code) {
        super(operation, rank, NONE, message);
        this.code = code;
    }
}
