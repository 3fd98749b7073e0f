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
