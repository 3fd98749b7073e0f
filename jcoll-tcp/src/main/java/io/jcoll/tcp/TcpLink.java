package io.jcoll.tcp;

import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.exceptions.ProtocolException;
import io.jcoll.tcp.p2p.Frame;
import io.jcoll.tcp.p2p.MatchCheck;
import io.jcoll.tcp.p2p.PointToPoint;
import io.jcoll.spi.FailureReason;
import io.jcoll.spi.Signature;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * {@link PointToPoint} over one non-blocking socket per peer, progressed by
 * the calling thread: posting a transfer tries the socket at once, and
 * waiting spins briefly, then sleeps in a selector that also watches every
 * other peer, so that a peer's death, abort or departure is noticed at once
 * whichever peer the algorithm is waiting for. Every wait ends by the call's
 * deadline with an exception naming the peer that did not answer.
 */
final class TcpLink implements PointToPoint {

    private static final System.Logger LOG = System.getLogger(TcpLink.class.getName());

    private final int rank;
    private final int size;
    private final Connection[] connections;
    private final Selector selector;
    private final long spinNanos;
    /** More ranks on this host than cores: a waiting rank yields its core to the rank it waits for. */
    private final boolean yieldWhileSpinning;

    private String operation = "bootstrap";
    private Signature signature = new Signature(0, 0, -1, -1, 0, -2);
    private long history;                      // digest of the collectives this rank completed before this call
    private long[] pairSendCounts;             // an uneven all-to-all's counts per peer, else null
    private long[] pairRecvCounts;
    private long deadline = Long.MAX_VALUE;

    TcpLink(int rank, int size, Connection[] connections, long spinNanos, boolean yieldWhileSpinning)
            throws IOException {
        this.rank = rank;
        this.size = size;
        this.connections = connections;
        this.spinNanos = spinNanos;
        this.yieldWhileSpinning = yieldWhileSpinning;
        this.selector = Selector.open();
        PayloadPlacement placement = new PayloadPlacement();
        for (Connection c : connections) {
            if (c != null) {
                c.placement = placement;
                c.channel.configureBlocking(false);
                c.key = c.channel.register(selector, SelectionKey.OP_READ, c);
            }
        }
    }

    /** Sets what the next transfers belong to: their signature, and the deadline of every wait. */
    void begin(String operation, Signature signature, long deadlineNanos) {
        begin(operation, signature, 0, null, null, deadlineNanos);
    }

    /**
     * Sets what the next transfers belong to: their signature, this rank's digest of the collectives it
     * completed before them, an uneven all-to-all's counts per peer (null otherwise: the signature's count
     * for every peer), and the deadline of every wait.
     */
    void begin(String operation, Signature signature, long history, long[] sendCounts, long[] recvCounts,
               long deadlineNanos) {
        this.operation = operation;
        this.signature = signature;
        this.history = history;
        this.pairSendCounts = sendCounts;
        this.pairRecvCounts = recvCounts;
        this.deadline = deadlineNanos;
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
        Connection c = connection(peer);
        ByteBuffer header = c.headerForSend();
        long count = pairSendCounts == null ? signature.count() : pairSendCounts[peer];
        Frame.encode(header, Frame.DATA, src.remaining(), signature, count, history);
        ByteBuffer padding = c.paddingFor(src);
        Frame.setPadding(header, padding.remaining());
        Connection.Send s = new Connection.Send(peer, header, padding, src);
        c.sends.add(s);
        try {
            c.pumpSends();
        } catch (IOException e) {
            throw failedWriting(c, e);
        }
        return s;
    }

    @Override
    public Transfer recv(int peer, ByteBuffer dst) {
        Connection c = connection(peer);
        Signature expected = pairRecvCounts == null ? signature : signature.withCount(pairRecvCounts[peer]);
        Connection.Recv r = new Connection.Recv(peer, dst, expected, history);
        c.recvs.add(r);
        pumpRecvs(c);
        return r;
    }

    @Override
    public void await(Transfer... transfers) {
        if (allDone(transfers)) {
            return;
        }
        long spinUntil = System.nanoTime() + spinNanos;
        while (true) {
            boolean progressed = progressPending();
            if (allDone(transfers)) {
                return;
            }
            long now = System.nanoTime();
            if (progressed) {
                continue;
            }
            if (now < spinUntil) {
                if (yieldWhileSpinning) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
                continue;
            }
            if (now - deadline >= 0) {
                throw timedOut(transfers);
            }
            block(deadline - now);
        }
    }

    @Override
    public boolean test(Transfer... transfers) {
        if (allDone(transfers)) {
            return true;
        }
        progressPending();
        return allDone(transfers);
    }

    private static boolean allDone(Transfer[] transfers) {
        for (Transfer t : transfers) {
            if (t != null && !t.isDone()) {
                return false;
            }
        }
        return true;
    }

    private Connection connection(int peer) {
        if (peer < 0 || peer >= size || peer == rank) {
            throw new IllegalArgumentException("no connection to rank " + peer);
        }
        Connection c = connections[peer];
        if (c.broken) {
            throw new PeerFailureException(operation, rank, peer, "the connection to rank " + peer
                    + " is already " + (c.peerClosed ? "closed: that rank closed its communicator" : "broken"));
        }
        return c;
    }

    /** One pass over the connections that have work queued. */
    private boolean progressPending() {
        boolean progressed = false;
        for (Connection c : connections) {
            if (c == null || c.broken || (c.sends.isEmpty() && c.recvs.isEmpty())) {
                continue;
            }
            try {
                progressed |= c.pumpSends();
            } catch (IOException e) {
                throw failedWriting(c, e);
            }
            progressed |= pumpRecvs(c);
        }
        return progressed;
    }

    /** Sleeps until a watched socket is ready or the time is up, then services the ready ones. */
    private void block(long nanos) {
        for (Connection c : connections) {
            if (c != null && !c.broken) {
                int ops = c.interest();
                try {
                    if (c.key.interestOps() != ops) {
                        c.key.interestOps(ops);
                    }
                } catch (CancelledKeyException e) {
                    // the channel was closed under this link: the same failure a read or write would report
                    throw failed(c, new ClosedChannelException());
                }
            }
        }
        try {
            selector.select(Math.max(1, Math.min(nanos / 1_000_000, 1_000)));
        } catch (IOException e) {
            throw new JcollException(operation, rank, JcollException.NONE, "selector failed: " + e.getMessage(), e);
        }
        Set<SelectionKey> ready = selector.selectedKeys();
        for (SelectionKey k : ready) {
            Connection c = (Connection) k.attachment();
            if (c.broken) {
                continue;
            }
            try {
                c.pumpSends();
            } catch (IOException e) {
                throw failedWriting(c, e);
            }
            pumpRecvs(c);
        }
        ready.clear();
    }

    /**
     * Reads what has arrived from one peer: a header whenever one is coming,
     * and payload only into a posted receive, after checking the header
     * against it. Handles the peer's ABORT and CLOSE frames and end of stream.
     */
    private boolean pumpRecvs(Connection c) {
        boolean progressed = false;
        try {
            while (true) {
                if (c.peerClosed) {
                    if (!c.recvs.isEmpty()) {
                        throw new PeerFailureException(operation, rank, c.peer, "rank " + c.peer
                                + " closed its communicator while this rank still expects data from it");
                    }
                    return progressed;
                }
                if (!c.headerComplete()) {
                    // a payload too short to be padded comes with its header in one read
                    Connection.Recv next = c.recvs.peek();
                    long n = next != null && !next.matched && c.inHeader.position() == 0
                            && next.expected < Frame.MIN_PADDED_PAYLOAD ? c.readHeaderAnd(next.dst) : c.readHeader();
                    if (n < 0) {
                        throw endOfStream(c);
                    }
                    progressed |= n > 0;
                    if (!c.headerComplete()) {
                        return progressed;
                    }
                }
                byte kind = Frame.kind(c.inHeader);
                if (kind == Frame.CLOSE) {
                    c.peerClosed = true;
                    c.peerClosedHistory = Frame.history(c.inHeader);
                    c.nextFrame();
                    continue;
                }
                if (kind == Frame.ABORT) {
                    throw abortedBy(c, c.recvs.peek());
                }
                if (kind != Frame.DATA) {
                    throw garbage(c, "a frame of unknown kind " + kind);
                }
                Connection.Recv r = c.recvs.peek();
                if (r == null) {
                    return progressed; // the payload waits in the socket until its receive is posted
                }
                if (!r.matched) {
                    if (!Frame.paddingValid(c.inHeader)) {
                        throw paddingRefused(c);
                    }
                    MatchCheck.check(operation, rank, c.peer, r.signature, r.expected, r.history,
                            Frame.signature(c.inHeader), Frame.payloadLength(c.inHeader), Frame.history(c.inHeader));
                    r.matched = true;
                    c.paddingLeft = Frame.padding(c.inHeader);
                }
                while (c.paddingLeft > 0) {
                    int n = c.skipPadding();
                    if (n < 0) {
                        throw endOfStream(c);
                    }
                    progressed |= n > 0;
                    if (n == 0) {
                        return progressed;
                    }
                }
                if (r.dst.hasRemaining()) {
                    int n = c.channel.read(r.dst);
                    if (n < 0) {
                        throw endOfStream(c);
                    }
                    progressed |= n > 0;
                    if (r.dst.hasRemaining()) {
                        return progressed;
                    }
                }
                r.done = true;
                c.recvs.poll();
                c.nextFrame();
                progressed = true;
                if (c.recvs.isEmpty()) {
                    // nothing more is expected: the next header is read when a receive is posted or the selector
                    // sees it arrive, not by a read now that would almost always find nothing (one system call per
                    // message saved)
                    return true;
                }
            }
        } catch (IOException e) {
            throw failed(c, e);
        }
        // a header refused by the match check leaves the stream whole: the connection is not marked broken, so
        // that the abort that follows still tells this very peer why (a mismatch's sender learns what it did)
    }

    private PeerFailureException endOfStream(Connection c) {
        c.broken = true;
        // an abort mid-transfer cannot send its reason over a half-written frame, so it ends the stream too
        return new PeerFailureException(operation, rank, c.peer, "rank " + c.peer + " closed its connection "
                + "without saying goodbye: its process exited, crashed or was killed, it aborted the communicator "
                + "mid-transfer, or the connection was cut");
    }

    private PeerFailureException failed(Connection c, IOException e) {
        c.broken = true;
        if (e instanceof ClosedChannelException) {
            // closed on this side, by no code of this link: something outside the transport cut it
            return new PeerFailureException(operation, rank, c.peer, "this rank's connection to rank " + c.peer
                    + " was closed under it (" + e.getClass().getSimpleName() + ")", e);
        }
        return new PeerFailureException(operation, rank, c.peer, "the connection to rank " + c.peer + " failed ("
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                + "): the connection was reset, its process died, or it aborted the communicator", e);
    }

    /**
     * A write to {@code c} failed. A peer that fails sends an ABORT frame saying why, then leaves; if it leaves
     * while this rank's data is still unread on its side, its kernel resets the connection, and the reset can
     * reach this rank's write before this rank read the frame. The frame is still queued here (a reset does not
     * discard what already arrived), so it is read now: the failure then names the rank the peer named.
     */
    private JcollException failedWriting(Connection c, IOException e) {
        Connection.Recv posted = c.recvs.peek();
        if (posted == null || !posted.matched) { // not in the middle of a payload: the next bytes are a header
            try {
                if (!c.headerComplete()) {
                    c.readHeader();
                }
                if (c.headerComplete() && Frame.kind(c.inHeader) == Frame.ABORT) {
                    return abortedBy(c, posted);
                }
            } catch (IOException nothingQueued) {
                // the reset took everything: report the write's failure
            }
        }
        return failed(c, e);
    }

    /** The current header's padding is none a sender writes (see {@link Frame#paddingValid}). */
    private ProtocolException paddingRefused(Connection c) {
        return garbage(c, "a frame with " + Frame.padding(c.inHeader) + " bytes of padding before a "
                + Frame.payloadLength(c.inHeader) + "-byte payload");
    }

    private ProtocolException garbage(Connection c, String what) {
        c.broken = true;
        return new ProtocolException(operation, rank, c.peer, "rank " + c.peer + " sent " + what
                + "; the stream cannot be trusted any more");
    }

    /**
     * Reads an ABORT frame's reason (bounded) and turns it into the failure it reports. The reason's first bytes
     * may have been read with the header into {@code posted}'s room.
     */
    private JcollException abortedBy(Connection c, Connection.Recv posted) throws IOException {
        int length = Frame.payloadLength(c.inHeader);
        int failedRank = Frame.failedRank(c.inHeader);
        if (length < 0 || length > Frame.MAX_REASON_BYTES || failedRank < 0 || failedRank >= size) {
            return garbage(c, "an ABORT frame with reason length " + length + " and failed rank " + failedRank);
        }
        ByteBuffer reason = ByteBuffer.allocate(length);
        if (posted != null && !posted.matched) {
            int start = posted.dst.position() - posted.read();
            reason.put(posted.dst.duplicate().limit(start + Math.min(length, posted.read())).position(start));
        }
        long until = System.nanoTime() + 2_000_000_000L;
        while (reason.hasRemaining() && System.nanoTime() < until) {
            if (c.channel.read(reason) < 0) {
                break;
            }
            if (reason.hasRemaining()) {
                Thread.onSpinWait();
            }
        }
        c.broken = true;
        String text = new String(reason.array(), 0, reason.position(), StandardCharsets.UTF_8);
        String via = failedRank == c.peer ? "" : " (reported by rank " + c.peer + ")";
        return new PeerFailureException(operation, rank, failedRank, "rank " + failedRank + " failed" + via + ": " + text);
    }

    private CollectiveTimeoutException timedOut(Transfer[] transfers) {
        for (Transfer t : transfers) {
            if (t instanceof Connection.Recv r && !r.done) {
                return timeout(r.peer, "receiving " + r.expected + " bytes from rank " + r.peer + " ("
                        + r.read() + " arrived)");
            }
            if (t instanceof Connection.Send s && !s.done) {
                return timeout(s.peer, "sending " + s.bytes + " bytes to rank " + s.peer + " ("
                        + (s.bytes - s.payload.remaining()) + " sent)");
            }
        }
        return timeout(JcollException.NONE, "waiting");
    }

    private CollectiveTimeoutException timeout(int peer, String what) {
        return new CollectiveTimeoutException(operation, rank, peer, "timed out " + what
                + (peer >= 0 ? ": rank " + peer + " stopped answering (stopped, hung, overloaded, or in another operation)" : "")
                + "; the limit is JCOLL_TIMEOUT");
    }

    /**
     * Tells every reachable peer which rank failed and why, then drops all
     * connections. A peer whose connection has a frame half-written gets only
     * the end of the stream.
     */
    void abort(Throwable cause) {
        int failedRank = cause instanceof JcollException j && j.peer() >= 0 ? j.peer() : rank;
        String text = cause instanceof JcollException j && j.peer() >= 0 ? "seen by rank " + rank + ": " + cause.getMessage()
                : cause.getMessage() != null ? cause.getMessage() : cause.toString(); // never a bare "null" to the peers
        byte[] reason = FailureReason.fit(text, Frame.MAX_REASON_BYTES);
        for (Connection c : connections) {
            if (c == null) {
                continue;
            }
            if (!c.broken && !c.sendInProgress) {
                ByteBuffer frame = ByteBuffer.allocate(Frame.HEADER_BYTES + reason.length).order(ByteOrder.LITTLE_ENDIAN);
                Frame.encode(frame, Frame.ABORT, reason.length, new Signature(0, 0, -1, failedRank, 0, -1));
                frame.limit(frame.capacity()).position(Frame.HEADER_BYTES);
                frame.put(reason).flip();
                try {
                    c.channel.write(frame); // one try: a few hundred bytes fit in any socket buffer
                } catch (IOException ignored) {
                    // the peer is gone already
                }
            }
            closeQuietly(c);
        }
        closeQuietly(selector);
    }

    /**
     * Says goodbye to every peer, lets each do the same, and closes. The goodbye carries this rank's digest of
     * the collectives it completed, and the peers' frames are read to their end of stream: a peer whose digest
     * differs, data a peer sent that no call of this rank received, or a peer's abort means the ranks did not
     * run the same calls (a broadcast with two roots ends without an error on every rank), and a stream that
     * ends before the peer's goodbye means the peer did not close: that is returned, so that closing reports
     * what would otherwise stay silent.
     *
     * @param finalHistory the transport's digest of every collective it completed: not this link's last call's,
     *                     since a link of a channel that the last calls did not use (an uneven all-to-all cuts
     *                     channels by each rank's own blocks) holds an older one
     * @return the first disagreement found, or null
     */
    JcollException close(long finalHistory) {
        history = finalHistory;
        ByteBuffer frame = ByteBuffer.allocate(Frame.HEADER_BYTES);
        long until = System.nanoTime() + 1_000_000_000L;
        for (Connection c : connections) {
            if (c == null || c.broken) {
                continue;
            }
            Frame.encode(frame, Frame.CLOSE, 0, signature, signature.count(), history);
            try {
                while (frame.hasRemaining() && System.nanoTime() < until) {
                    if (c.channel.write(frame) == 0) {
                        Thread.onSpinWait();
                    }
                }
                c.channel.shutdownOutput();
            } catch (IOException e) {
                // The peer reset the connection: it closed without reading all this rank sent, as an abort does.
                // What it wrote first (its ABORT frame, most often) is still queued here, so it is read below.
            }
        }
        // drain until each peer's end of stream, so no unread byte turns our close into a reset
        for (Connection c : connections) {
            if (c != null && !c.broken && c.key.isValid()) {
                c.key.interestOps(SelectionKey.OP_READ);
            }
        }
        operation = "close";
        Farewells farewells = new Farewells();
        boolean open = true;
        while (open && System.nanoTime() < until) {
            open = false;
            for (Connection c : connections) {
                if (c != null && !c.broken) {
                    open |= farewells.read(c);
                }
            }
            if (open) {
                try {
                    selector.select(10);
                    selector.selectedKeys().clear();
                } catch (IOException e) {
                    break;
                }
            }
        }
        for (Connection c : connections) {
            if (c != null) {
                if (c.peerClosed) {
                    farewells.compare(c);
                }
                closeQuietly(c);
            }
        }
        closeQuietly(selector);
        LOG.log(System.Logger.Level.DEBUG, "rank " + rank + " closed its connections");
        return farewells.first;
    }

    /** Reads what peers send while this rank leaves, frame by frame, and notes the first disagreement. */
    private final class Farewells {
        private final ByteBuffer sink = ByteBuffer.allocate(64 << 10);
        private final long[] unread = new long[size]; // payload bytes still to skip, per peer
        JcollException first;

        /** Reads what {@code c} has; returns whether its stream is still open. */
        boolean read(Connection c) {
            try {
                while (true) {
                    if (unread[c.peer] > 0) {
                        int n = c.channel.read(sink.clear().limit((int) Math.min(sink.capacity(), unread[c.peer])));
                        if (n <= 0) {
                            return ended(c, n);
                        }
                        unread[c.peer] -= n;
                        continue;
                    }
                    if (!c.headerComplete()) {
                        int n = c.readHeader();
                        if (n < 0 || !c.headerComplete()) {
                            return ended(c, n);
                        }
                    }
                    byte kind = Frame.kind(c.inHeader);
                    if (kind == Frame.CLOSE) {
                        c.peerClosed = true;
                        c.peerClosedHistory = Frame.history(c.inHeader);
                    } else if (kind == Frame.DATA) {
                        note(new io.jcoll.exceptions.CollectiveMismatchException("close", rank, c.peer, "rank "
                                + c.peer + " sent data for " + Frame.signature(c.inHeader).describe() + " that no call "
                                + "of this rank received: the ranks did not run the same collectives with the same "
                                + "arguments (a different root, say), and their results may differ"));
                        if (!Frame.paddingValid(c.inHeader)) {
                            note(paddingRefused(c));
                            return false;
                        }
                        unread[c.peer] = Frame.padding(c.inHeader) + (long) Math.max(0, Frame.payloadLength(c.inHeader));
                    } else if (kind == Frame.ABORT) {
                        note(abortedBy(c, null));
                        return false;
                    } else {
                        note(garbage(c, "a frame of unknown kind " + kind));
                        return false;
                    }
                    c.nextFrame();
                }
            } catch (IOException e) {
                return ended(c); // a reset
            }
        }

        private boolean ended(Connection c, int n) {
            return n >= 0 || ended(c);
        }

        /**
         * The peer's stream is over, by its end or a reset. Before its CLOSE frame, that is news: a peer that closes
         * says goodbye first and one that aborts says why, so the peer's process died or left without closing its
         * communicator, and this rank's completed calls do not say that the peer completed its own.
         */
        private boolean ended(Connection c) {
            c.broken = true;
            if (!c.peerClosed) {
                note(new PeerFailureException("close", rank, c.peer, "rank " + c.peer + "'s connection ended before "
                        + "its goodbye: its process died, was killed or exited without closing its communicator, so "
                        + "the calls this rank completed may not have completed there"));
            }
            return false;
        }

        /** After the peer's CLOSE: its digest must be this rank's. */
        void compare(Connection c) {
            if (c.peerClosedHistory != history) {
                note(new io.jcoll.exceptions.CollectiveMismatchException("close", rank, c.peer, "rank " + c.peer
                        + " and this rank disagree about an earlier collective: one of them was called with other "
                        + "arguments on one of the two (a different root, count, type or op) and completed without "
                        + "either noticing, so their results may differ; every rank must issue the same collectives, "
                        + "in the same order, with the same arguments"));
            }
        }

        private void note(JcollException e) {
            if (first == null) {
                first = e;
            }
        }
    }

    private static void closeQuietly(Connection c) {
        c.broken = true;
        closeQuietly(c.channel);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
