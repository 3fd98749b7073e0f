package io.jcoll.tcp;

import io.jcoll.tcp.p2p.Frame;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;

/**
 * One authenticated, non-blocking connection to a peer, with its queues of
 * posted sends and receives. Frames go out in posting order; incoming frame
 * headers are read as soon as they arrive (so that a peer's death or abort is
 * seen even while nothing is expected from it), payloads only into a posted receive.
 */
final class Connection {

    /** A posted send: header, then payload. */
    static final class Send implements io.jcoll.tcp.p2p.PointToPoint.Transfer {
        final int peer;
        final ByteBuffer header;
        /** The frame's padding: zeros, empty for none (see {@link PayloadPlacement}). */
        final ByteBuffer padding;
        final ByteBuffer payload;
        final int bytes;
        boolean done;

        Send(int peer, ByteBuffer header, ByteBuffer padding, ByteBuffer payload) {
            this.peer = peer;
            this.bytes = payload.remaining();
            this.header = header;
            this.padding = padding;
            this.payload = payload;
        }

        @Override
        public boolean isDone() {
            return done;
        }
    }

    /** A posted receive of exactly {@code dst.remaining()} bytes. */
    static final class Recv implements io.jcoll.tcp.p2p.PointToPoint.Transfer {
        final int peer;
        final ByteBuffer dst;
        final int expected;
        /** What the sender must be doing: the receiver's call (with the pair's count in an uneven all-to-all). */
        final io.jcoll.spi.Signature signature;
        /** The receiver's digest of its completed collectives, which the sender's must equal. */
        final long history;
        boolean matched;
        boolean done;

        Recv(int peer, ByteBuffer dst, io.jcoll.spi.Signature signature, long history) {
            this.peer = peer;
            this.dst = dst;
            this.expected = dst.remaining();
            this.signature = signature;
            this.history = history;
        }

        /** Bytes read into {@code dst} so far. */
        int read() {
            return expected - dst.remaining();
        }

        @Override
        public boolean isDone() {
            return done;
        }
    }

    final int peer;
    final SocketChannel channel;
    SelectionKey key;
    final ArrayDeque<Send> sends = new ArrayDeque<>();
    final ArrayDeque<Recv> recvs = new ArrayDeque<>();
    /** The header of the next incoming frame, filled as bytes arrive. */
    final ByteBuffer inHeader = ByteBuffer.allocateDirect(Frame.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer[] gather = new ByteBuffer[3];
    private final ByteBuffer[] scatter = new ByteBuffer[2];
    /**
     * Direct buffers for outgoing headers, reused: a heap buffer would make the JDK copy it into a temporary
     * direct buffer on every write, and a new direct buffer per send costs more than the send.
     */
    private final ArrayDeque<ByteBuffer> spareHeaders = new ArrayDeque<>();
    /** The peer said it is leaving (CLOSE frame) or its stream ended after that. */
    boolean peerClosed;
    /** The history digest the peer's CLOSE frame carried, compared with this rank's own when it closes too. */
    long peerClosedHistory;
    /** Nothing more can be read or written: the stream ended or failed. */
    boolean broken;
    /** The send at the head of the queue has started going out (no other frame may be interleaved). */
    boolean sendInProgress;
    /** Padding bytes of the current incoming frame still to be read and dropped before its payload. */
    int paddingLeft;
    private ByteBuffer paddingSink;
    /**
     * Where payloads land in the kernel's memory, told every byte written: one for all the connections of a
     * link ({@link TcpLink} sets it), since the kernel's pages are the sending thread's whichever socket it writes.
     */
    PayloadPlacement placement = new PayloadPlacement();

    Connection(int peer, SocketChannel channel) {
        this.peer = peer;
        this.channel = channel;
    }

    /** The padding for a frame carrying {@code payload}: a view of zeros, empty for none. */
    ByteBuffer paddingFor(ByteBuffer payload) {
        int n = placement.paddingFor(payload);
        return n == 0 ? NO_PADDING : ZEROS.duplicate().limit(n);
    }

    private static final ByteBuffer NO_PADDING = ByteBuffer.allocateDirect(0);
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(Frame.MAX_PADDING).asReadOnlyBuffer();

    /**
     * Reads and drops the current frame's padding; returns -1 at end of stream, else the bytes read (the
     * padding is all read when {@link #paddingLeft} is 0).
     */
    int skipPadding() throws IOException {
        if (paddingSink == null) {
            paddingSink = ByteBuffer.allocateDirect(Frame.MAX_PADDING);
        }
        int n = channel.read(paddingSink.clear().limit(paddingLeft));
        if (n > 0) {
            paddingLeft -= n;
        }
        return n;
    }

    /** A direct header buffer for the next send, returned here once that send is written. */
    ByteBuffer headerForSend() {
        ByteBuffer h = spareHeaders.poll();
        return h != null ? h : ByteBuffer.allocateDirect(Frame.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    }

    boolean headerComplete() {
        return !inHeader.hasRemaining();
    }

    /** Writes as much of the queued sends as the socket takes. Returns whether any byte moved. */
    boolean pumpSends() throws IOException {
        boolean moved = false;
        while (!sends.isEmpty()) {
            Send s = sends.peek();
            gather[0] = s.header;
            gather[1] = s.padding;
            gather[2] = s.payload;
            long n = channel.write(gather);
            if (n > 0) {
                moved = true;
                sendInProgress = true;
                placement.wrote(n);
            }
            if (s.header.hasRemaining() || s.padding.hasRemaining() || s.payload.hasRemaining()) {
                return moved;
            }
            s.done = true;
            sends.poll();
            spareHeaders.push(s.header);
            sendInProgress = false;
        }
        return moved;
    }

    /**
     * Reads a header if one is coming; returns -1 at end of stream, else the
     * bytes read.
     */
    int readHeader() throws IOException {
        return channel.read(inHeader);
    }

    /**
     * Reads the next header and, in the same system call, as much of the payload as {@code payload} (the
     * posted receive's room) takes: a small message then costs one read, not two. The caller checks the header
     * before it uses the payload bytes, and the room bounds how much is read whatever the header claims.
     * Returns -1 at end of stream, else the bytes read.
     */
    long readHeaderAnd(ByteBuffer payload) throws IOException {
        scatter[0] = inHeader;
        scatter[1] = payload;
        try {
            return channel.read(scatter);
        } finally {
            scatter[1] = null;
        }
    }

    void nextFrame() {
        inHeader.clear();
    }

    int interest() {
        int ops = 0;
        if (!sends.isEmpty()) {
            ops |= SelectionKey.OP_WRITE;
        }
        if (!peerClosed && (!headerComplete() || !recvs.isEmpty())) {
            ops |= SelectionKey.OP_READ;
        }
        return ops;
    }
}
