package io.jcoll.spi;

import io.jcoll.Buffer;

import java.nio.ByteBuffer;

/**
 * A buffer whose bytes a host-memory transport can reach a segment at a time:
 * as views of itself (a byte buffer), or copied through a stage the transport
 * owns (a Java array, GPU memory). The TCP algorithms use nothing else, so
 * their scratch stays a few segments whatever the memory is.
 */
public interface StagedAccess extends Buffer {

    /**
     * Bytes {@code [byteOffset, byteOffset + length)} ready to be read from index 0:
     * a view of this buffer, or {@code stage} filled with a copy.
     *
     * @param byteOffset the first byte
     * @param length how many bytes
     * @param stage memory the caller owns, used when a view is impossible
     * @return the bytes, from index 0
     */
    ByteBuffer readable(long byteOffset, int length, ByteBuffer stage);

    /**
     * Room for bytes {@code [byteOffset, byteOffset + length)} from index 0: a view,
     * or {@code stage}; what is written must then go to {@link #commit}.
     *
     * @param byteOffset the first byte
     * @param length how many bytes
     * @param stage memory the caller owns, used when a view is impossible
     * @return the room to write, from index 0
     */
    ByteBuffer writable(long byteOffset, int length, ByteBuffer stage);

    /**
     * Completes a {@link #writable} region (copies a stage into place; nothing for a view).
     *
     * @param byteOffset the first byte
     * @param region what writable returned, filled
     */
    void commit(long byteOffset, ByteBuffer region);
}
