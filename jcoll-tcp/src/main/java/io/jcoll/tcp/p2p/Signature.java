package io.jcoll.tcp.p2p;

import io.jcoll.spi.Call;

/**
 * What the sender of a message was doing, carried in every data frame so the
 * receiver can check that both sides are in the same operation: operation,
 * type, reduce op, root, count and collective sequence number.
 */
public record Signature(int operation, int type, int reduceOp, int root, long count, long sequence) {

    /** The signature of a call. A recv expects the signature of the matching send. */
    public static Signature of(Call call) {
        int op = call.operation().ordinal();
        if (call.operation() == io.jcoll.spi.Operation.RECV) {
            op = io.jcoll.spi.Operation.SEND.ordinal();
        }
        return new Signature(op, call.type().ordinal(),
                call.reduceOp() == null ? -1 : call.reduceOp().ordinal(),
                call.operation().isCollective() ? call.root() : -1, call.count(), call.sequence());
    }

    /** Describes this signature in words, for mismatch messages. */
    public String describe() {
        var ops = io.jcoll.spi.Operation.values();
        var types = io.jcoll.DataType.values();
        var reduceOps = io.jcoll.ReduceOp.values();
        StringBuilder b = new StringBuilder();
        b.append(operation >= 0 && operation < ops.length ? ops[operation].label() : "operation " + operation);
        if (sequence >= 0) {
            b.append(" #").append(sequence);
        }
        b.append(" (").append(count).append(" x ")
                .append(type >= 0 && type < types.length ? types[type].toString() : "type " + type);
        if (reduceOp >= 0) {
            b.append(", ").append(reduceOp < reduceOps.length ? reduceOps[reduceOp].toString() : "op " + reduceOp);
        }
        if (root >= 0) {
            b.append(", root ").append(root);
        }
        return b.append(')').toString();
    }
}
