package io.jcoll.gpu;

import io.jcoll.Buffer;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A buffer in GPU memory: allocated by jcoll ({@link #allocate}, freed by
 * {@link #close()}, with a {@link Cleaner} as a safety net), or memory another
 * framework owns ({@link #wrap}, never freed here). Copies to and from host
 * buffers go through the CUDA runtime. Host-memory transports (TCP) reach it a
 * segment at a time through {@link io.jcoll.spi.StagedAccess}: each segment is
 * copied through the transport's stage, so GPU memory works where NCCL does not.
 */
public final class DeviceBuffer implements io.jcoll.spi.StagedAccess, AutoCloseable {

    private static final Cleaner CLEANER = Cleaner.create();

    /** Frees an allocation once, from close() or the cleaner. */
    private static final class Allocation implements Runnable {
        private final long address;
        private boolean freed;

        Allocation(long address) {
            this.address = address;
        }

        @Override
        public synchronized void run() {
            if (!freed) {
                freed = true;
                Cuda.free(address);
            }
        }
    }

    private final long address;
    private final long count;
    private final DataType type;
    private final int device;
    private Cleaner.Cleanable cleanable;       // null for wrapped memory and views
    private final DeviceBuffer owner;          // the allocation a view keeps alive
    private volatile boolean closed;

    private DeviceBuffer(long address, long count, DataType type, int device, Cleaner.Cleanable cleanable, DeviceBuffer owner) {
        this.address = address;
        this.count = count;
        this.type = type;
        this.device = device;
        this.cleanable = cleanable;
        this.owner = owner;
    }

    /** {@code count} elements of {@code type} on GPU {@code device}. */
    public static DeviceBuffer allocate(int device, DataType type, long count) {
        GpuRuntime.require("allocate", -1);
        Objects.requireNonNull(type, "type");
        if (count <= 0) {
            throw new IllegalArgumentException("count " + count + " must be positive");
        }
        long bytes = Math.multiplyExact(count, (long) type.size());
        Cuda.setDevice(device);
        long address = Cuda.malloc(bytes);
        DeviceBuffer b = new DeviceBuffer(address, count, type, device, null, null);
        b.cleanable = CLEANER.register(b, new Allocation(address));
        return b;
    }

    /** Memory another framework owns: {@code bytes} at {@code address} on GPU {@code device}. Not freed here. */
    public static DeviceBuffer wrap(long address, long bytes, int device, DataType type) {
        if (address == 0) {
            throw new IllegalArgumentException("null device address");
        }
        if (bytes < 0 || bytes % type.size() != 0) {
            throw new IllegalArgumentException(bytes + " bytes is not a whole number of " + type + " elements");
        }
        return new DeviceBuffer(address, bytes / type.size(), type, device, null, null);
    }

    public long address() {
        checkOpen();
        return address;
    }

    /** The address of element {@code element}, bounds-checked. */
    public long addressOf(long element) {
        checkOpen();
        Objects.checkIndex(element, count + 1);
        return address + element * type.size();
    }

    public int device() {
        return device;
    }

    @Override public DataType type() { return type; }
    @Override public long count() { return count; }
    @Override public boolean isReadOnly() { return false; }
    @Override public boolean isClosed() { return closed || (owner != null && owner.closed); }
    @Override public Location location() { return Location.DEVICE; }

    @Override
    public DeviceBuffer slice(long offset, long n) {
        Objects.checkFromIndexSize(offset, n, count);
        return new DeviceBuffer(address + offset * type.size(), n, type, device, null, owner == null ? this : owner);
    }

    @Override
    public boolean sameMemoryAs(Buffer other) {
        return other instanceof DeviceBuffer d && d.address == address && d.device == device;
    }

    @Override
    public ByteBuffer readable(long byteOffset, int length, ByteBuffer stage) {
        checkRange(byteOffset, length);
        ByteBuffer target = directStage(stage, length);
        Cuda.setDevice(device);
        Cuda.copyToHostNow(target.duplicate(), address + byteOffset);
        return target;
    }

    @Override
    public ByteBuffer writable(long byteOffset, int length, ByteBuffer stage) {
        checkRange(byteOffset, length);
        return directStage(stage, length);
    }

    @Override
    public void commit(long byteOffset, ByteBuffer region) {
        ByteBuffer src = region.duplicate();
        src.position(0);
        int length = src.remaining();
        checkRange(byteOffset, length);
        if (length == 0) {
            return;
        }
        if (!src.isDirect()) { // CUDA reads host memory by address
            src = directStage(null, length).put(0, src, 0, length);
        }
        Cuda.setDevice(device);
        Cuda.copyToDeviceNow(address + byteOffset, src);
    }

    /** {@code stage} if it is direct and large enough, else a new direct buffer; cleared and limited to {@code length}. */
    private static ByteBuffer directStage(ByteBuffer stage, int length) {
        ByteBuffer target = stage != null && stage.isDirect() && stage.capacity() >= length ? stage
                : ByteBuffer.allocateDirect(length);
        return target.clear().limit(length);
    }

    /** Every byte range is checked here, before an address is formed from it. */
    private void checkRange(long byteOffset, int length) {
        checkOpen();
        if (byteOffset < 0 || length < 0 || byteOffset + length > count * type.size()) {
            throw new IndexOutOfBoundsException("bytes [" + byteOffset + ", " + (byteOffset + length)
                    + ") outside device buffer " + this);
        }
    }

    /** Copies a host buffer's elements into the start of this buffer (synchronously). */
    public void copyFrom(HostBuffer src) {
        int bytes = fitting(src);
        commit(0, src.readable(0, bytes, src.isByteAddressable() ? null : ByteBuffer.allocateDirect(bytes)));
    }

    /** Copies this buffer's first {@code dst.count()} elements into a host buffer (synchronously). */
    public void copyTo(HostBuffer dst) {
        int bytes = fitting(dst);
        ByteBuffer into = dst.writable(0, bytes, dst.isByteAddressable() ? null : ByteBuffer.allocateDirect(bytes));
        ByteBuffer landed = readable(0, bytes, into); // straight into the host memory when it is direct
        if (landed != into) {
            into.put(0, landed, 0, bytes);
        }
        dst.commit(0, into);
    }

    private int fitting(HostBuffer host) {
        checkOpen();
        if (host.type().size() != type.size() || host.count() > count) {
            throw new IllegalArgumentException("host buffer " + host + " does not fit device buffer " + this);
        }
        return (int) host.byteSize();
    }

    private void checkOpen() {
        if (isClosed()) {
            throw new IllegalStateException("device buffer " + this + " was closed");
        }
    }

    /** Frees memory jcoll allocated; a no-op for wrapped memory and views. Idempotent. */
    @Override
    public void close() {
        closed = true;
        if (cleanable != null) {
            cleanable.clean();
        }
    }

    @Override
    public String toString() {
        return "DeviceBuffer[" + count + " x " + type + " on GPU " + device + " at 0x" + Long.toHexString(address)
                + (cleanable == null ? ", not owned" : "") + (closed ? ", closed" : "") + "]";
    }
}
