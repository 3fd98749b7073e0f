package io.jcoll;

/**
 * Memory a collective reads or writes: a typed run of {@link #count()} elements.
 *
 * <p>Host memory is a {@link HostBuffer} (a {@link java.nio.ByteBuffer} or a Java
 * array). Memory on a GPU is a device buffer from the native module; transports
 * say which locations they accept and explain when they do not.
 * <pre>{@code
 * Buffer all = HostBuffer.of(new float[4096]);
 * Buffer firstHalf = all.slice(0, 2048);       // same memory
 * }</pre>
 */
public interface Buffer {

    /** Where the bytes live. */
    enum Location {
        /** Java memory: a {@link HostBuffer}. */
        HOST,
        /** GPU memory. */
        DEVICE
    }

    /** {@return the element type} */
    DataType type();

    /**
     * Number of elements of {@link #type()} this buffer holds.
     *
     * @return the number of elements
     */
    long count();

    /**
     * Whether the buffer may only be read (a collective refuses to write into it).
     *
     * @return whether collectives must not write into it
     */
    boolean isReadOnly();

    /** {@return where the bytes live} */
    Location location();

    /**
     * Whether the memory behind this buffer was released (a closed device
     * buffer, or a view of one). Collectives refuse a closed buffer before any
     * pointer reaches native code.
     *
     * @return true once the memory is gone; host buffers never close
     */
    default boolean isClosed() {
        return false;
    }

    /**
     * A view of {@code count} elements starting at element {@code offset}, over the same memory.
     *
     * @param offset the first element of the view
     * @param count elements (per rank; see the operation above)
     * @return the view
     */
    Buffer slice(long offset, long count);

    /**
     * Whether this buffer starts at the same memory as {@code other}, so that
     * an operation given both runs in place. Conservative: false when unknown.
     *
     * @param other the buffer to compare with
     * @return whether both start at the same memory
     */
    boolean sameMemoryAs(Buffer other);

    /**
     * Bytes this buffer holds.
     *
     * @return the number of bytes
     */
    default long byteSize() {
        return count() * type().size();
    }
}
