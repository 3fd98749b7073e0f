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
        ByteBuffer target = stage != null && stage.isDirect() && stage.capacity() >= length ? stage
                : ByteBuffer.allocateDirect(length);
        target.clear().limit(length);
        Cuda.setDevice(device);
        var stream = Cuda.stream(0);
        Cuda.copyToHost(target.duplicate(), address + byteOffset, stream);
        Cuda.synchronize(stream);
        return target;
    }

    @Override
    public ByteBuffer writable(long byteOffset, int length, ByteBuffer stage) {
        checkRange(byteOffset, length);
        ByteBuffer target = stage != null && stage.isDirect() && stage.capacity() >= length ? stage
                : ByteBuffer.allocateDirect(length);
        return target.clear().limit(length);
    }

    @Override
    public void commit(long byteOffset, ByteBuffer region) {
        ByteBuffer src = region.duplicate();
        src.position(0);
        checkRange(byteOffset, src.remaining());
        if (src.remaining() == 0) {
            return;
        }
        Cuda.setDevice(device);
        var stream = Cuda.stream(0);
        Cuda.copyToDevice(address + byteOffset, direct(src, src.remaining()), stream);
        Cuda.synchronize(stream);
    }

    /** Every byte range is checked here, before an address is formed from it. */
    private void checkRange(long byteOffset, int length) {
        checkOpen();
        if (byteOffset < 0 || length < 0 || byteOffset + length > count * type.size()) {
            throw new IndexOutOfBoundsException("bytes [" + byteOffset + ", " + (byteOffset + length)
                    + ") outside device buffer " + this);
        }
    }

    /** Copies a host buffer's elements into this buffer (synchronously). */
    public void copyFrom(HostBuffer src) {
        transfer(src, true);
    }

    /** Copies this buffer's first {@code dst.count()} elements into a host buffer (synchronously). */
    public void copyTo(HostBuffer dst) {
        transfer(dst, false);
    }

    private void transfer(HostBuffer host, boolean toDevice) {
        checkOpen();
        if (host.type().size() != type.size() || host.count() > count) {
            throw new IllegalArgumentException("host buffer " + host + " does not fit device buffer " + this);
        }
        int bytes = (int) host.byteSize();
        if (bytes == 0) {
            return;
        }
        Cuda.setDevice(device);
        ByteBuffer stage = host.isByteAddressable() ? null : ByteBuffer.allocateDirect(bytes);
        var stream = Cuda.stream(0);
        if (toDevice) {
            ByteBuffer src = host.readable(0, bytes, stage);
            Cuda.copyToDevice(address, direct(src, bytes), stream);
        } else {
            ByteBuffer dst = host.writable(0, bytes, stage);
            ByteBuffer target = dst.isDirect() ? dst : ByteBuffer.allocateDirect(bytes);
            Cuda.copyToHost(target.duplicate().clear().limit(bytes), address, stream);
            Cuda.synchronize(stream);
            if (target != dst) {
                dst.put(0, target, 0, bytes);
            }
            host.commit(0, dst);
            return;
        }
        Cuda.synchronize(stream);
    }

    private static ByteBuffer direct(ByteBuffer b, int bytes) {
        if (b.isDirect()) {
            return b.duplicate().position(0).limit(bytes);
        }
        ByteBuffer d = ByteBuffer.allocateDirect(bytes);
        d.put(0, b, 0, bytes);
        return d;
    }

    private void checkOpen() {
        if (closed || (owner != null && owner.closed)) {
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
