package io.jcoll.tcp.algorithm;

import io.jcoll.spi.HostMemory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A communicator's working memory, bounded by a few segments whatever the
 * message size: {@link Pipeline#DEPTH} send and receive stages (segments in
 * flight each way), one stage each for a reduction's inputs and output, and
 * two whole-message buffers for the small-message algorithms (at most one
 * segment each: a recursive-halving ReduceScatter holds an input of up to one
 * segment). Allocated on first use, reused afterwards, from {@link HostMemory}:
 * page-locked where a GPU runtime offers it, so that GPU buffers staged through
 * here are copied by the copy engines directly.
 */
public final class Scratch implements AutoCloseable {

    private final int segmentBytes;
    private final HostMemory memory;
    private final ByteBuffer[] send = new ByteBuffer[Pipeline.DEPTH];
    private final ByteBuffer[] recv = new ByteBuffer[Pipeline.DEPTH];
    private final ByteBuffer[] whole = new ByteBuffer[2];
    private ByteBuffer own;
    private ByteBuffer dst;

    public Scratch(int segmentBytes) {
        this(segmentBytes, HostMemory.DIRECT);
    }

    public Scratch(int segmentBytes, HostMemory memory) {
        this.segmentBytes = segmentBytes;
        this.memory = memory;
    }

    /** The bytes each stage holds. */
    public int stageBytes() {
        return segmentBytes;
    }

    /** What the stages are made of, for reports. */
    public HostMemory memory() {
        return memory;
    }

    public ByteBuffer sendStage(int slot) {
        if (send[slot] == null) {
            send[slot] = allocate(segmentBytes);
        }
        return send[slot].clear();
    }

    public ByteBuffer recvStage(int slot) {
        if (recv[slot] == null) {
            recv[slot] = allocate(segmentBytes);
        }
        return recv[slot].clear();
    }

    public ByteBuffer ownStage() {
        if (own == null) {
            own = allocate(segmentBytes);
        }
        return own.clear();
    }

    public ByteBuffer dstStage() {
        if (dst == null) {
            dst = allocate(segmentBytes);
        }
        return dst.clear();
    }

    /** Whole-message buffer {@code which} (0 or 1), at least {@code bytes} long, limited to {@code bytes}. */
    public ByteBuffer whole(int which, int bytes) {
        if (whole[which] == null || whole[which].capacity() < bytes) {
            memory.free(whole[which]);
            whole[which] = allocate(Math.max(bytes, 64));
        }
        return whole[which].clear().limit(bytes);
    }

    /** Bytes currently held. */
    public long footprint() {
        long n = 0;
        for (ByteBuffer[] group : new ByteBuffer[][] {send, recv, whole, {own, dst}}) {
            for (ByteBuffer b : group) {
                n += b == null ? 0 : b.capacity();
            }
        }
        return n;
    }

    private ByteBuffer allocate(int bytes) {
        return memory.allocate(bytes).order(ByteOrder.nativeOrder());
    }

    /** Returns every stage to its memory; the transport calls this once no call can touch them. */
    @Override
    public void close() {
        for (ByteBuffer[] group : new ByteBuffer[][] {send, recv, whole}) {
            for (int i = 0; i < group.length; i++) {
                memory.free(group[i]);
                group[i] = null;
            }
        }
        memory.free(own);
        memory.free(dst);
        own = null;
        dst = null;
    }
}
