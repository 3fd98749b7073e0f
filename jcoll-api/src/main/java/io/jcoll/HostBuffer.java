package io.jcoll;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A buffer in host memory: a {@link ByteBuffer} (direct or heap) or a Java array.
 *
 * <p>A byte buffer is read from its position to its limit, in native byte order
 * whatever order the buffer itself is set to; its position and limit are not
 * changed by collectives. Arrays map to types as follows: {@code float[]} float32,
 * {@code double[]} float64, {@code int[]} int32, {@code long[]} int64, {@code byte[]}
 * int8, uint8 or fp8, {@code short[]} float16 or bfloat16 (the raw 16-bit patterns).
 *
 * <p>Transports move bytes with the three region methods
 * ({@link #readable}, {@link #writable}, {@link #commit}): a byte buffer hands
 * out views of itself, an array is staged through a caller-supplied buffer a
 * segment at a time, so that no copy of the whole message is ever made.
 * <pre>{@code
 * HostBuffer grads = HostBuffer.of(new float[1 << 20]);                       // a float32 array
 * ByteBuffer direct = ByteBuffer.allocateDirect(4096);
 * HostBuffer halves = HostBuffer.of(direct, DataType.BFLOAT16);                // 2048 bfloat16 values
 * HostBuffer weights = HostBuffer.of(new short[1024], DataType.FLOAT16);      // raw float16 bits
 * }</pre>
 */
public final class HostBuffer implements io.jcoll.spi.StagedAccess {

    private final DataType type;
    private final ByteBuffer bytes;   // native-order view of [position, limit); null for arrays
    private final Object array;       // the Java array; null for byte buffers
    private final Object identity;    // what "same memory" is judged by
    private final long identityOffset; // byte offset of element 0 within identity
    private final long offset;        // first element within array (arrays only)
    private final long count;
    private final boolean readOnly;

    private HostBuffer(DataType type, ByteBuffer bytes, Object array, Object identity, long identityOffset,
                       long offset, long count, boolean readOnly) {
        this.type = type;
        this.bytes = bytes;
        this.array = array;
        this.identity = identity;
        this.identityOffset = identityOffset;
        this.offset = offset;
        this.count = count;
        this.readOnly = readOnly;
    }

    /**
     * Wraps the bytes between the buffer's position and limit as elements of {@code type}.
     *
     * @param buffer the bytes, read from its position to its limit
     * @param type the element type
     * @return a buffer over that memory
     */
    public static HostBuffer of(ByteBuffer buffer, DataType type) {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(type, "type");
        int remaining = buffer.remaining();
        if (remaining % type.size() != 0) {
            throw new IllegalArgumentException("buffer has " + remaining + " bytes remaining, not a multiple of "
                    + type + "'s " + type.size() + " bytes");
        }
        ByteBuffer view = buffer.slice().order(ByteOrder.nativeOrder());
        Object identity;
        long identityOffset;
        if (buffer.hasArray()) {
            identity = buffer.array();
            identityOffset = buffer.arrayOffset() + buffer.position();
        } else {
            identity = buffer;
            identityOffset = buffer.position();
        }
        return new HostBuffer(type, view, null, identity, identityOffset, 0, remaining / type.size(),
                buffer.isReadOnly());
    }

    /**
     * A whole {@code float[]} as float32, shared, not copied.
     *
     * @param a the array
     * @return a buffer over it
     */
    public static HostBuffer of(float[] a) { return of(a, 0, a.length); }
    /**
     * A whole {@code double[]} as float64, shared, not copied.
     *
     * @param a the array
     * @return a buffer over it
     */
    public static HostBuffer of(double[] a) { return of(a, 0, a.length); }
    /**
     * A whole {@code int[]} as int32, shared, not copied.
     *
     * @param a the array
     * @return a buffer over it
     */
    public static HostBuffer of(int[] a) { return of(a, 0, a.length); }
    /**
     * A whole {@code long[]} as int64, shared, not copied.
     *
     * @param a the array
     * @return a buffer over it
     */
    public static HostBuffer of(long[] a) { return of(a, 0, a.length); }
    /**
     * A {@code byte[]} as int8.
     *
     * @param a the array, shared, not copied
     * @return a buffer over that memory
     */
    public static HostBuffer of(byte[] a) { return of(a, DataType.INT8); }

    /**
     * Part of a {@code float[]} as float32, shared, not copied.
     *
     * @param a      the array
     * @param from   the first element used
     * @param length how many elements
     * @return a buffer over them
     */
    public static HostBuffer of(float[] a, int from, int length) {
        return ofArray(a, a.length, DataType.FLOAT32, from, length);
    }

    /**
     * Part of a {@code double[]} as float64, shared, not copied.
     *
     * @param a      the array
     * @param from   the first element used
     * @param length how many elements
     * @return a buffer over them
     */
    public static HostBuffer of(double[] a, int from, int length) {
        return ofArray(a, a.length, DataType.FLOAT64, from, length);
    }

    /**
     * Part of a {@code int[]} as int32, shared, not copied.
     *
     * @param a      the array
     * @param from   the first element used
     * @param length how many elements
     * @return a buffer over them
     */
    public static HostBuffer of(int[] a, int from, int length) {
        return ofArray(a, a.length, DataType.INT32, from, length);
    }

    /**
     * Part of a {@code long[]} as int64, shared, not copied.
     *
     * @param a      the array
     * @param from   the first element used
     * @param length how many elements
     * @return a buffer over them
     */
    public static HostBuffer of(long[] a, int from, int length) {
        return ofArray(a, a.length, DataType.INT64, from, length);
    }

    /**
     * A {@code byte[]} as int8, uint8, or the raw bit patterns of an FP8 type.
     *
     * @param a the array, shared, not copied
     * @param type the element type
     * @return a buffer over that memory
     */
    public static HostBuffer of(byte[] a, DataType type) {
        if (type.size() != 1) {
            throw new IllegalArgumentException("a byte[] holds int8, uint8 or fp8, not " + type);
        }
        return ofArray(a, a.length, type, 0, a.length);
    }

    /**
     * A {@code short[]} of raw 16-bit patterns as {@link DataType#FLOAT16} or {@link DataType#BFLOAT16}.
     *
     * @param a the array, shared, not copied
     * @param type the element type
     * @return a buffer over that memory
     */
    public static HostBuffer of(short[] a, DataType type) {
        if (type != DataType.FLOAT16 && type != DataType.BFLOAT16) {
            throw new IllegalArgumentException("a short[] holds float16 or bfloat16 bit patterns, not " + type);
        }
        return ofArray(a, a.length, type, 0, a.length);
    }

    private static HostBuffer ofArray(Object a, int length, DataType type, int from, int count) {
        Objects.requireNonNull(a, "array");
        Objects.checkFromIndexSize(from, count, length);
        return new HostBuffer(type, null, a, a, (long) from * type.size(), from, count, false);
    }

    @Override public DataType type() { return type; }
    @Override public long count() { return count; }
    @Override public boolean isReadOnly() { return readOnly; }
    @Override public Location location() { return Location.HOST; }

    /**
     * Whether the bytes can be handed out as views (a byte buffer) rather than staged (an array).
     *
     * @return whether views are possible
     */
    public boolean isByteAddressable() {
        return bytes != null;
    }

    @Override
    public HostBuffer slice(long from, long n) {
        Objects.checkFromIndexSize(from, n, count);
        long byteFrom = from * type.size();
        if (bytes != null) {
            ByteBuffer view = bytes.slice((int) byteFrom, (int) (n * type.size())).order(ByteOrder.nativeOrder());
            return new HostBuffer(type, view, null, identity, identityOffset + byteFrom, 0, n, readOnly);
        }
        return new HostBuffer(type, null, array, identity, identityOffset + byteFrom, offset + from, n, readOnly);
    }

    /**
     * The same memory with another element type of the same width (e.g. int8 and uint8).
     *
     * @param other the buffer to compare with
     * @return the view
     */
    public HostBuffer as(DataType other) {
        if (other.size() != type.size()) {
            throw new IllegalArgumentException("cannot view " + type + " as " + other + ": element sizes differ");
        }
        return new HostBuffer(other, bytes, array, identity, identityOffset, offset, count, readOnly);
    }

    @Override
    public boolean sameMemoryAs(Buffer other) {
        return other instanceof HostBuffer h && h.identity == identity && h.identityOffset == identityOffset;
    }

    /**
     * Bytes {@code [byteOffset, byteOffset + length)} ready to be read: a view of
     * this buffer, or {@code stage} filled with a copy (cleared, then flipped).
     *
     * @param byteOffset the first byte
     * @param length how many bytes
     * @param stage memory the caller owns, used when a view is impossible
     * @return the bytes, from index 0
     */
    @Override
    public ByteBuffer readable(long byteOffset, int length, ByteBuffer stage) {
        checkRange(byteOffset, length);
        if (bytes != null) {
            return bytes.slice((int) byteOffset, length).order(ByteOrder.nativeOrder());
        }
        stage.clear().limit(length);
        copyArrayOut(byteOffset, stage);
        stage.flip();
        return stage;
    }

    /**
     * Room for bytes {@code [byteOffset, byteOffset + length)}: a view of this
     * buffer, or {@code stage} (cleared, limited to {@code length}). Whatever is
     * written must then be passed to {@link #commit}.
     *
     * @param byteOffset the first byte
     * @param length how many bytes
     * @param stage memory the caller owns, used when a view is impossible
     * @return the room to write, from index 0
     */
    @Override
    public ByteBuffer writable(long byteOffset, int length, ByteBuffer stage) {
        checkRange(byteOffset, length);
        if (readOnly) {
            throw new java.nio.ReadOnlyBufferException();
        }
        if (bytes != null) {
            return bytes.slice((int) byteOffset, length).order(ByteOrder.nativeOrder());
        }
        stage.clear().limit(length);
        return stage;
    }

    /**
     * Completes a {@link #writable} region: copies a staged region into the array;
     * nothing to do for a view. Reads {@code region} from 0 to its limit.
     *
     * @param byteOffset the first byte
     * @param region what writable returned, filled
     */
    @Override
    public void commit(long byteOffset, ByteBuffer region) {
        if (bytes != null) {
            return;
        }
        ByteBuffer src = region.duplicate().order(ByteOrder.nativeOrder());
        src.position(0);
        checkRange(byteOffset, src.remaining());
        copyArrayIn(byteOffset, src);
    }

    private void checkRange(long byteOffset, int length) {
        if (byteOffset < 0 || length < 0 || byteOffset + length > count * type.size()) {
            throw new IndexOutOfBoundsException("bytes [" + byteOffset + ", " + (byteOffset + length)
                    + ") outside a buffer of " + count * type.size() + " bytes");
        }
    }

    /**
     * Copies array elements starting at byteOffset into dst's remaining bytes.
     *
     * @param byteOffset the first byte
     * @param dst the dst
     */
    private void copyArrayOut(long byteOffset, ByteBuffer dst) {
        ByteBuffer d = dst.duplicate().order(ByteOrder.nativeOrder());
        int first = (int) (offset + byteOffset / type.size());
        int n = dst.remaining() / type.size();
        if (array instanceof float[] a) d.asFloatBuffer().put(a, first, n);
        else if (array instanceof double[] a) d.asDoubleBuffer().put(a, first, n);
        else if (array instanceof int[] a) d.asIntBuffer().put(a, first, n);
        else if (array instanceof long[] a) d.asLongBuffer().put(a, first, n);
        else if (array instanceof short[] a) d.asShortBuffer().put(a, first, n);
        else if (array instanceof byte[] a) d.put(a, first, n);
        else throw new IllegalStateException("unsupported array " + array.getClass());
        dst.position(dst.position() + n * type.size());
    }

    /**
     * Copies src's remaining bytes into array elements starting at byteOffset.
     *
     * @param byteOffset the first byte
     * @param src the src
     */
    private void copyArrayIn(long byteOffset, ByteBuffer src) {
        int first = (int) (offset + byteOffset / type.size());
        int n = src.remaining() / type.size();
        if (array instanceof float[] a) src.asFloatBuffer().get(a, first, n);
        else if (array instanceof double[] a) src.asDoubleBuffer().get(a, first, n);
        else if (array instanceof int[] a) src.asIntBuffer().get(a, first, n);
        else if (array instanceof long[] a) src.asLongBuffer().get(a, first, n);
        else if (array instanceof short[] a) src.asShortBuffer().get(a, first, n);
        else if (array instanceof byte[] a) src.get(a, first, n);
        else throw new IllegalStateException("unsupported array " + array.getClass());
    }

    @Override
    public String toString() {
        String kind = bytes == null ? array.getClass().getSimpleName()
                : (bytes.isDirect() ? "direct ByteBuffer" : "heap ByteBuffer");
        return "HostBuffer[" + count + " x " + type + ", " + kind + (readOnly ? ", read-only" : "") + "]";
    }
}
