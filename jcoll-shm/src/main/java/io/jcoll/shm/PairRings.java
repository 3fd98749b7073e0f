package io.jcoll.shm;

import io.jcoll.spi.Signature;
import io.jcoll.tcp.p2p.Frame;
import io.jcoll.tcp.p2p.MatchCheck;
import io.jcoll.tcp.p2p.PointToPoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;

/**
 * {@link PointToPoint} over the segment's rings: one single-producer, single-consumer byte ring per ordered pair
 * of ranks, with a head the sender advances and a tail the receiver advances. A message is the TCP transport's
 * {@link Frame} header (its length, the sender's signature, count and history, checked by the receiver before it
 * reads a byte of payload) and its bytes; messages larger than the ring stream through it. Progressed by the calling thread, like the TCP link, so
 * the point-to-point algorithms shared with the TCP transport (send/recv, uneven all-to-all, grouped calls) run
 * over it unchanged.
 */
final class PairRings implements PointToPoint {

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final int HEADER_BYTES = Frame.HEADER_BYTES;

    private final int rank;
    private final int size;
    private final Layout layout;
    private final ByteBuffer map;
    private final Waiter waiter;
    private final int mask;
    private final Outgoing[] out;
    private final Incoming[] in;

    private Signature signature = new Signature(0, 0, -1, -1, 0, -2);
    private long history;
    private long[] pairSendCounts;
    private long[] pairRecvCounts;

    PairRings(int rank, Layout layout, ByteBuffer map, Waiter waiter) {
        this.rank = rank;
        this.size = layout.size();
        this.layout = layout;
        this.map = map;
        this.waiter = waiter;
        this.mask = layout.ringBytes() - 1;
        this.out = new Outgoing[size];
        this.in = new Incoming[size];
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                out[p] = new Outgoing(p, (int) layout.ringOffset(rank, p));
                in[p] = new Incoming(p, (int) layout.ringOffset(p, rank));
            }
        }
    }

    /** What the next messages belong to (as the TCP link's begin): signature, history, uneven counts per peer. */
    void begin(Signature signature, long history, long[] sendCounts, long[] recvCounts) {
        this.signature = signature;
        this.history = history;
        this.pairSendCounts = sendCounts;
        this.pairRecvCounts = recvCounts;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Transfer send(int peer, ByteBuffer src) {
        Outgoing o = out[peer];
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        Frame.encode(header, Frame.DATA, src.remaining(), signature,
                pairSendCounts == null ? signature.count() : pairSendCounts[peer], history);
        Send s = new Send(header, src.slice().order(src.order()));
        o.queue.add(s);
        o.pump();
        return s;
    }

    @Override
    public Transfer recv(int peer, ByteBuffer dst) {
        Incoming i = in[peer];
        Signature expected = pairRecvCounts == null ? signature : signature.withCount(pairRecvCounts[peer]);
        Recv r = new Recv(dst.slice(), expected, history);
        i.queue.add(r);
        i.pump();
        return r;
    }

    @Override
    public void await(Transfer... transfers) {
        if (!test(transfers)) {
            waiter.until(this::firstPendingPeer, () -> test(transfers));
        }
    }

    @Override
    public boolean test(Transfer... transfers) {
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                out[p].pump();
                in[p].pump();
            }
        }
        for (Transfer t : transfers) {
            if (t != null && !t.isDone()) { // the algorithms pass null for a transfer they did not post
                return false;
            }
        }
        return true;
    }

    /** The first peer with a message still queued either way: the one a wait names if it fails. */
    private int firstPendingPeer() {
        for (int p = 0; p < size; p++) {
            if (p != rank && (!out[p].queue.isEmpty() || !in[p].queue.isEmpty())) {
                return p;
            }
        }
        return (rank + 1) % size;
    }

    private static final class Send implements Transfer {
        final ByteBuffer header;
        final ByteBuffer payload;
        boolean done;

        Send(ByteBuffer header, ByteBuffer payload) {
            this.header = header;
            this.payload = payload;
        }

        @Override
        public boolean isDone() {
            return done;
        }
    }

    private static final class Recv implements Transfer {
        final ByteBuffer dst;
        final Signature expected;
        final long history;
        final ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        boolean done;

        Recv(ByteBuffer dst, Signature expected, long history) {
            this.dst = dst;
            this.expected = expected;
            this.history = history;
        }

        @Override
        public boolean isDone() {
            return done;
        }
    }

    /** This rank's ring to one peer: it writes the bytes and the head; the peer writes the tail. */
    private final class Outgoing {
        final int peer;
        final int headAt;
        final int tailAt;
        final int dataAt;
        final ArrayDeque<Send> queue = new ArrayDeque<>();
        long head;

        Outgoing(int peer, int ringAt) {
            this.peer = peer;
            this.headAt = ringAt;
            this.tailAt = ringAt + Layout.LINE;
            this.dataAt = ringAt + Layout.RING_HEADER_BYTES;
            this.head = (long) LONGS.getAcquire(map, headAt);
        }

        void pump() {
            Send s;
            while ((s = queue.peek()) != null) {
                long room = layout.ringBytes() - (head - (long) LONGS.getAcquire(map, tailAt));
                if (s.header.hasRemaining()) {
                    if (room < HEADER_BYTES) {
                        return; // headers go whole, so a receiver never sees half of one
                    }
                    write(s.header, HEADER_BYTES);
                    room -= HEADER_BYTES;
                }
                int n = (int) Math.min(room, s.payload.remaining());
                if (n > 0) {
                    write(s.payload, n);
                }
                LONGS.setRelease(map, headAt, head);
                if (s.payload.hasRemaining()) {
                    return;
                }
                s.done = true;
                queue.poll();
            }
        }

        private void write(ByteBuffer src, int n) {
            int at = (int) (head & mask);
            int first = Math.min(n, layout.ringBytes() - at);
            map.put(dataAt + at, src, src.position(), first);
            map.put(dataAt, src, src.position() + first, n - first);
            src.position(src.position() + n);
            head += n;
        }
    }

    /** A peer's ring to this rank: the peer writes bytes and head; this rank writes the tail. */
    private final class Incoming {
        final int peer;
        final int headAt;
        final int tailAt;
        final int dataAt;
        final ArrayDeque<Recv> queue = new ArrayDeque<>();
        long tail;

        Incoming(int peer, int ringAt) {
            this.peer = peer;
            this.headAt = ringAt;
            this.tailAt = ringAt + Layout.LINE;
            this.dataAt = ringAt + Layout.RING_HEADER_BYTES;
            this.tail = (long) LONGS.getAcquire(map, tailAt);
        }

        void pump() {
            Recv r;
            while ((r = queue.peek()) != null) {
                long available = (long) LONGS.getAcquire(map, headAt) - tail;
                if (available < 0 || available > layout.ringBytes()) {
                    throw waiter.corrupt(peer, "its ring to this rank holds " + available + " bytes");
                }
                if (r.header.hasRemaining()) {
                    if (available < HEADER_BYTES) {
                        return;
                    }
                    read(r.header, HEADER_BYTES);
                    available -= HEADER_BYTES;
                    MatchCheck.check(waiter.operation(), rank, peer, r.expected, r.dst.remaining(), r.history,
                            Frame.signature(r.header), Frame.payloadLength(r.header), Frame.history(r.header));
                }
                int n = (int) Math.min(available, r.dst.remaining());
                if (n > 0) {
                    read(r.dst, n);
                }
                LONGS.setRelease(map, tailAt, tail);
                if (r.dst.hasRemaining()) {
                    return;
                }
                r.done = true;
                queue.poll();
            }
        }

        private void read(ByteBuffer dst, int n) {
            int at = (int) (tail & mask);
            int first = Math.min(n, layout.ringBytes() - at);
            dst.put(dst.position(), map, dataAt + at, first);
            dst.put(dst.position() + first, map, dataAt, n - first);
            dst.position(dst.position() + n);
            tail += n;
        }
    }
}
