package io.jcoll;

/**
 * Memory a collective reads or writes: a typed run of {@link #count()} elements.
 *
 * <p>Host memory is a {@link HostBuffer} (a {@link java.nio.ByteBuffer} or a Java
 * array). Memory on a GPU is a device buffer from the native module; transports
 * say which locations they accept and explain when they do not.
 */
public interface Buffer {

    /** Where the bytes live. */
    enum Location { HOST, DEVICE }

    DataType type();

    /** Number of elements of {@link #type()} this buffer holds. */
    long count();

    /** Whether the buffer may only be read (a collective refuses to write into it). */
    boolean isReadOnly();

    Location location();

    /** A view of {@code count} elements starting at element {@code offset}, over the same memory. */
    Buffer slice(long offset, long count);

    /**
     * Whether this buffer starts at the same memory as {@code other}, so that
     * an operation given both runs in place. Conservative: false when unknown.
     */
    boolean sameMemoryAs(Buffer other);

    /** Bytes this buffer holds. */
    default long byteSize() {
        return count() * type().size();
    }
}
