package io.jcoll.spi;

import io.jcoll.Buffer;
import io.jcoll.DataType;
import io.jcoll.ReduceOp;

/**
 * One validated operation, handed to a transport. Every argument has been
 * checked before a transport sees it: buffers hold what the operation needs,
 * the output is writable, ranks are in range.
 *
 * @param operation  what to do
 * @param send       input ({@code null} for recv and barrier, and for broadcast on non-roots)
 * @param recv       output ({@code null} for send and barrier)
 * @param count      elements per rank: allReduce and broadcast: the whole message; allGather: each
 *                   rank's contribution; reduceScatter: each rank's result; allToAll: the block for
 *                   each peer; send/recv: the message
 * @param type       element type
 * @param reduceOp   reduction, or {@code null} when the operation does not reduce
 * @param root       broadcast's root, or send/recv's peer; -1 otherwise
 * @param sequence   position of a collective in this communicator's order (all ranks agree); -1 for send/recv
 * @param inPlace    whether input and output are the same memory, laid out as NCCL and MPI define in-place use
 */
public record Call(Operation operation, Buffer send, Buffer recv, long count, DataType type,
                   ReduceOp reduceOp, int root, long sequence, boolean inPlace) {

    /** Total bytes of the message this rank contributes, for logs and statistics. */
    public long bytes() {
        return count * type.size();
    }

    /** Elements of the input this call reads on a rank of a {@code size}-rank group (0 without an input). */
    public long sendElements(int size) {
        if (send == null) {
            return 0;
        }
        return switch (operation) {
            case REDUCE_SCATTER, ALL_TO_ALL -> count * size;
            case BARRIER, RECV -> 0;
            default -> count;
        };
    }

    /** Elements of the output this call writes on a rank of a {@code size}-rank group (0 without an output). */
    public long recvElements(int size) {
        if (recv == null) {
            return 0;
        }
        return switch (operation) {
            case ALL_GATHER, ALL_TO_ALL -> count * size;
            case BARRIER, SEND -> 0;
            default -> count;
        };
    }

    /** A short description for messages: {@code allReduce #12 (1000 x float32, sum)}. */
    public String describe() {
        StringBuilder b = new StringBuilder(operation.label());
        if (sequence >= 0) {
            b.append(" #").append(sequence);
        }
        b.append(" (").append(count).append(" x ").append(type);
        if (reduceOp != null) {
            b.append(", ").append(reduceOp);
        }
        if (root >= 0) {
            b.append(operation == Operation.BROADCAST ? ", root " : ", peer ").append(root);
        }
        return b.append(')').toString();
    }
}
