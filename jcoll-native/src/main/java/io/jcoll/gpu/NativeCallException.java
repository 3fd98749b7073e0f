package io.jcoll.gpu;

import io.jcoll.exceptions.JcollException;

/** A CUDA or NCCL call returned an error; the message names the call, its code and the library's explanation. */
public class NativeCallException extends JcollException {

    private final int code;

    public NativeCallException(String operation, int rank, String message, int code) {
        super(operation, rank, NONE, message);
        this.code = code;
    }

    /** The library's result code. */
    public int code() {
        return code;
    }
}
