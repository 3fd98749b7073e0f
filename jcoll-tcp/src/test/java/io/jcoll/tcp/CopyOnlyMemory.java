package io.jcoll.tcp;

import io.jcoll.Buffer;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.spi.StagedAccess;

import java.nio.ByteBuffer;

/**
 * Memory the way a GPU looks to the TCP transport: reachable only by copying
 * through a stage, never as a view. Wraps a host buffer (so in-place layouts
 * keep their meaning) and says it is device memory.
 */
final class CopyOnlyMemory implements StagedAccess {

    private final HostBuffer host;

    CopyOnlyMemory(HostBuffer host) {
        this.host = host;
    }

    @Override public DataType type() { return host.type(); }
    @Override public long count() { return host.count(); }
    @Override public boolean isReadOnly() { return host.isReadOnly(); }
    @Override public Location location() { return Location.DEVICE; }

    @Override
    public Buffer slice(long offset, long count) {
        return new CopyOnlyMemory(host.slice(offset, count));
    }

    @Override
    public boolean sameMemoryAs(Buffer other) {
        return other instanceof CopyOnlyMemory c && c.host.sameMemoryAs(host);
    }

    @Override
    public ByteBuffer readable(long byteOffset, int length, ByteBuffer stage) {
        ByteBuffer view = host.readable(byteOffset, length, ByteBuffer.allocate(length));
        stage.clear().limit(length);
        stage.put(0, view, 0, length);
        return stage;
    }

    @Override
    public ByteBuffer writable(long byteOffset, int length, ByteBuffer stage) {
        if (host.isReadOnly()) {
            throw new java.nio.ReadOnlyBufferException();
        }
        return stage.clear().limit(length);
    }

    @Override
    public void commit(long byteOffset, ByteBuffer region) {
        int length = region.limit();
        ByteBuffer out = host.writable(byteOffset, length, ByteBuffer.allocate(length));
        out.put(0, region, 0, length);
        host.commit(byteOffset, out);
    }
}
