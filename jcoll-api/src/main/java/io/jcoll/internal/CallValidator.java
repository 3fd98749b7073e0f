package io.jcoll.internal;

import io.jcoll.Buffer;
import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.Transport;

/**
 * Turns a user's arguments into a {@link Call}, or rejects them before any
 * byte moves with a message that says what is wrong, with the numbers.
 */
final class CallValidator {

    private final int rank;
    private final int size;
    private final Transport transport;

    CallValidator(int rank, int size, Transport transport) {
        this.rank = rank;
        this.size = size;
        this.transport = transport;
    }

    Call allReduce(Buffer send, Buffer recv, long count, ReduceOp op, long seq) {
        Operation o = Operation.ALL_REDUCE;
        requireOp(o, op);
        DataType type = pair(o, send, recv);
        requireCount(o, count);
        capacity(o, "send", send, count, "count");
        capacity(o, "recv", recv, count, "count");
        return new Call(o, send, recv, count, type, op, -1, seq, send.sameMemoryAs(recv));
    }

    Call allGather(Buffer send, Buffer recv, long count, long seq) {
        Operation o = Operation.ALL_GATHER;
        DataType type = pair(o, send, recv);
        requireCount(o, count);
        capacity(o, "send", send, count, "count");
        long total = times(o, count);
        capacityForAll(o, "recv", recv, total, "count", count);
        boolean inPlace = send.sameMemoryAs(recv.slice(rank * count, count));
        return new Call(o, send, recv, count, type, null, -1, seq, inPlace);
    }

    Call reduceScatter(Buffer send, Buffer recv, long count, ReduceOp op, long seq) {
        Operation o = Operation.REDUCE_SCATTER;
        requireOp(o, op);
        DataType type = pair(o, send, recv);
        requireCount(o, count);
        long total = times(o, count);
        capacityForAll(o, "send", send, total, "count", count);
        capacity(o, "recv", recv, count, "count");
        boolean inPlace = recv.sameMemoryAs(send.slice(rank * count, count));
        if (!inPlace && send.sameMemoryAs(recv)) {
            throw invalid(o, "recv starts where send does; for in-place use pass send.slice(rank * count, count) as recv");
        }
        return new Call(o, send, recv, count, type, op, -1, seq, inPlace);
    }

    Call allToAll(Buffer send, Buffer recv, long count, long seq) {
        Operation o = Operation.ALL_TO_ALL;
        DataType type = pair(o, send, recv);
        requireCount(o, count);
        long total = times(o, count);
        capacityForAll(o, "send", send, total, "countPerRank", count);
        capacityForAll(o, "recv", recv, total, "countPerRank", count);
        return new Call(o, send, recv, count, type, null, -1, seq, send.sameMemoryAs(recv));
    }

    Call broadcast(Buffer send, Buffer recv, long count, int root, long seq) {
        Operation o = Operation.BROADCAST;
        requireRank(o, "root", root);
        requireCount(o, count);
        output(o, recv);
        capacity(o, "recv", recv, count, "count");
        boolean inPlace = false;
        if (rank == root) {
            input(o, "send", send);
            sameType(o, send, recv);
            capacity(o, "send", send, count, "count");
            inPlace = send.sameMemoryAs(recv);
        }
        return new Call(o, rank == root ? send : null, recv, count, recv.type(), null, root, seq, inPlace);
    }

    Call allToAllV(Buffer send, long[] sendCounts, long[] sendOffsets, Buffer recv, long[] recvCounts,
                   long[] recvOffsets, long seq) {
        Operation o = Operation.ALL_TO_ALL_V;
        DataType type = pair(o, send, recv);
        if (send.sameMemoryAs(recv)) {
            throw invalid(o, "send and recv are the same memory; an uneven all-to-all cannot run in place "
                    + "(blocks of different sizes would overwrite input not yet sent): use two buffers");
        }
        long[] sc = perRank(o, "sendCounts", sendCounts);
        long[] rc = perRank(o, "recvCounts", recvCounts);
        long[] so = sendOffsets == null ? packed(o, "sendCounts", sc) : perRank(o, "sendOffsets", sendOffsets);
        long[] ro = recvOffsets == null ? packed(o, "recvCounts", rc) : perRank(o, "recvOffsets", recvOffsets);
        if (sc[rank] != rc[rank]) {
            throw invalid(o, "this rank sends itself " + sc[rank] + " elements but receives " + rc[rank]
                    + " from itself; sendCounts[" + rank + "] and recvCounts[" + rank + "] must be equal");
        }
        blocksFit(o, "send", send, sc, so);
        blocksFit(o, "recv", recv, rc, ro);
        noOverlap(o, rc, ro);
        return new Call(o, send, recv, 0, type, null, -1, seq, false, new io.jcoll.spi.Vectors(sc, so, rc, ro),
                java.util.List.of());
    }

    Call reduce(Buffer send, Buffer recv, long count, ReduceOp op, int root, long seq) {
        Operation o = Operation.REDUCE;
        requireRank(o, "root", root);
        requireOp(o, op);
        requireCount(o, count);
        input(o, "send", send);
        capacity(o, "send", send, count, "count");
        boolean inPlace = false;
        if (rank == root) {
            output(o, recv);
            sameType(o, send, recv);
            capacity(o, "recv", recv, count, "count");
            inPlace = send.sameMemoryAs(recv);
        }
        return new Call(o, send, rank == root ? recv : null, count, send.type(), op, root, seq, inPlace);
    }

    Call gather(Buffer send, Buffer recv, long count, int root, long seq) {
        Operation o = Operation.GATHER;
        requireRank(o, "root", root);
        requireCount(o, count);
        input(o, "send", send);
        capacity(o, "send", send, count, "count");
        boolean inPlace = false;
        if (rank == root) {
            output(o, recv);
            sameType(o, send, recv);
            capacityForAll(o, "recv", recv, times(o, count), "count", count);
            inPlace = send.sameMemoryAs(recv.slice(rank * count, count));
        }
        return new Call(o, send, rank == root ? recv : null, count, send.type(), null, root, seq, inPlace);
    }

    Call scatter(Buffer send, Buffer recv, long count, int root, long seq) {
        Operation o = Operation.SCATTER;
        requireRank(o, "root", root);
        requireCount(o, count);
        output(o, recv);
        capacity(o, "recv", recv, count, "count");
        boolean inPlace = false;
        if (rank == root) {
            input(o, "send", send);
            sameType(o, send, recv);
            capacityForAll(o, "send", send, times(o, count), "count", count);
            inPlace = recv.sameMemoryAs(send.slice(rank * count, count));
        }
        return new Call(o, rank == root ? send : null, recv, count, recv.type(), null, root, seq, inPlace);
    }

    /**
     * The exchange that forms sub-communicators: this rank's color, key and host ({@code mine}), gathered from
     * every rank into {@code all}.
     */
    Call split(long[] mine, long[] all, long seq) {
        long color = mine[0];
        if (color < 0 && color != io.jcoll.Communicator.NO_COLOR) {
            throw invalid(Operation.SPLIT, "color " + color + " is negative; colors are 0 or more, or NO_COLOR ("
                    + io.jcoll.Communicator.NO_COLOR + ") to take part in no new communicator");
        }
        io.jcoll.HostBuffer in = io.jcoll.HostBuffer.of(mine);
        supported(Operation.SPLIT, "split's own", in);
        return new Call(Operation.SPLIT, in, io.jcoll.HostBuffer.of(all), mine.length, DataType.INT64, null, -1, seq,
                false);
    }

    /** This rank's block of an in-place buffer (allGather, reduceScatter), once it is known to hold size * count. */
    Buffer ownBlock(Operation o, Buffer data, long count) {
        if (data == null) {
            throw invalid(o, "data buffer is null");
        }
        open(o, "data", data);
        requireCount(o, count);
        capacityForAll(o, "data", data, times(o, count), "count", count);
        return data.slice(rank * count, count);
    }

    Call barrier(long seq) {
        return new Call(Operation.BARRIER, null, null, 0, DataType.INT8, null, -1, seq, false);
    }

    Call send(Buffer data, long count, int peer) {
        Operation o = Operation.SEND;
        requirePeer(o, peer);
        input(o, "data", data);
        requireCount(o, count);
        capacity(o, "data", data, count, "count");
        return new Call(o, data, null, count, data.type(), null, peer, -1, false);
    }

    Call recv(Buffer data, long count, int peer) {
        Operation o = Operation.RECV;
        requirePeer(o, peer);
        output(o, data);
        requireCount(o, count);
        capacity(o, "data", data, count, "count");
        return new Call(o, null, data, count, data.type(), null, peer, -1, false);
    }

    // ---- checks

    /** A copy of a per-rank array, checked: one entry per rank, none negative. */
    private long[] perRank(Operation o, String name, long[] values) {
        if (values == null) {
            throw invalid(o, name + " is null");
        }
        if (values.length != size) {
            throw invalid(o, name + " has " + values.length + " entries but the communicator has " + size
                    + " ranks; give one per rank");
        }
        long[] copy = values.clone(); // the caller may change its array once the call returns
        for (int r = 0; r < size; r++) {
            if (copy[r] < 0) {
                throw invalid(o, name + "[" + r + "] = " + copy[r] + " is negative");
            }
        }
        return copy;
    }

    private long[] packed(Operation o, String countsName, long[] counts) {
        try {
            return io.jcoll.spi.Vectors.packed(counts);
        } catch (ArithmeticException e) {
            throw invalid(o, "the sum of " + countsName + " overflows a long");
        }
    }

    /** Every block {@code [offsets[r], offsets[r] + counts[r])} lies in {@code b}, its bytes countable in a long. */
    private void blocksFit(Operation o, String name, Buffer b, long[] counts, long[] offsets) {
        for (int r = 0; r < size; r++) {
            long end;
            try {
                end = Math.addExact(offsets[r], counts[r]);
                Math.multiplyExact(end, (long) b.type().size());
            } catch (ArithmeticException e) {
                throw invalid(o, name + " block for rank " + r + " (offset " + offsets[r] + ", count " + counts[r]
                        + ") overflows a long in bytes");
            }
            if (counts[r] > 0 && end > b.count()) {
                throw invalid(o, name + " block for rank " + r + " is elements [" + offsets[r] + ", " + end
                        + ") but the " + name + " buffer holds " + b.count() + " " + b.type() + " elements");
            }
        }
    }

    /**
     * The received blocks may not overlap: two peers' data would land on the same elements. Blocks are compared in
     * the order of their offsets: rank order where the offsets ascend with it (packed layouts, the common case, at no
     * cost on the call's path), sorted otherwise.
     */
    private void noOverlap(Operation o, long[] counts, long[] offsets) {
        int[] order = new int[size];
        boolean ascending = true;
        for (int r = 0; r < size; r++) {
            order[r] = r;
            ascending &= r == 0 || offsets[r] >= offsets[r - 1];
        }
        if (!ascending) {
            order = java.util.stream.IntStream.range(0, size).boxed()
                    .sorted(java.util.Comparator.comparingLong(r -> offsets[r])).mapToInt(Integer::intValue).toArray();
        }
        int last = -1;
        for (int r : order) {
            if (counts[r] == 0) {
                continue;
            }
            if (last >= 0 && offsets[last] + counts[last] > offsets[r]) {
                throw invalid(o, "recv blocks from ranks " + last + " and " + r + " overlap (elements [" + offsets[last]
                        + ", " + (offsets[last] + counts[last]) + ") and [" + offsets[r] + ", " + (offsets[r] + counts[r])
                        + ")); each rank's data needs its own place");
            }
            last = r;
        }
    }

    private DataType pair(Operation o, Buffer send, Buffer recv) {
        input(o, "send", send);
        output(o, recv);
        return sameType(o, send, recv);
    }

    private DataType sameType(Operation o, Buffer send, Buffer recv) {
        if (send.type() != recv.type()) {
            throw invalid(o, "send holds " + send.type() + " but recv holds " + recv.type() + "; both must be one type");
        }
        return send.type();
    }

    private void input(Operation o, String name, Buffer b) {
        if (b == null) {
            throw invalid(o, name + " buffer is null");
        }
        supported(o, name, b);
    }

    private void output(Operation o, Buffer b) {
        String name = o == Operation.RECV ? "data" : "recv";
        if (b == null) {
            throw invalid(o, name + " buffer is null");
        }
        if (b.isReadOnly()) {
            throw invalid(o, name + " buffer " + b + " is read-only, and this operation writes its result there");
        }
        supported(o, name, b);
    }

    private void open(Operation o, String name, Buffer b) {
        if (b.isClosed()) {
            throw invalid(o, name + " buffer " + b + " was closed: its memory is released and must not be used");
        }
    }

    private void supported(Operation o, String name, Buffer b) {
        open(o, name, b);
        String why = transport.unsupportedReason(b);
        if (why != null) {
            throw invalid(o, name + " buffer " + b + " cannot be used with the " + transport.name() + " transport: " + why);
        }
    }

    private void requireOp(Operation o, ReduceOp op) {
        if (op == null) {
            throw invalid(o, "reduce op is null");
        }
    }

    private void requireCount(Operation o, long count) {
        if (count < 0) {
            throw invalid(o, "count " + count + " is negative");
        }
    }

    private long times(Operation o, long count) {
        try {
            return Math.multiplyExact(count, (long) size);
        } catch (ArithmeticException e) {
            throw invalid(o, "size * count = " + size + " * " + count + " overflows");
        }
    }

    private void capacity(Operation o, String name, Buffer b, long needed, String why) {
        if (b.count() < needed) {
            throw invalid(o, name + " buffer holds " + b.count() + " " + b.type() + " elements but " + why
                    + " = " + needed + " are needed");
        }
    }

    /** As {@link #capacity} for a buffer of every rank's block; the message is built only when it is thrown. */
    private void capacityForAll(Operation o, String name, Buffer b, long needed, String countName, long count) {
        if (b.count() < needed) {
            capacity(o, name, b, needed, "size * " + countName + " = " + size + " * " + count);
        }
    }

    private void requireRank(Operation o, String what, int r) {
        if (r < 0 || r >= size) {
            throw invalid(o, what + " " + r + " is out of range: ranks are 0.." + (size - 1));
        }
    }

    private void requirePeer(Operation o, int peer) {
        requireRank(o, "peer", peer);
        if (peer == rank) {
            throw invalid(o, "peer " + peer + " is this rank itself; a message to oneself would never be matched");
        }
    }

    private InvalidArgumentException invalid(Operation o, String message) {
        return new InvalidArgumentException(o.label(), rank, JcollException.NONE, message);
    }
}
