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
 * @param vectors    allToAllV's per-peer counts and offsets; null otherwise
 * @param members    a group's calls, in issue order; empty otherwise
 */
public record Call(Operation operation, Buffer send, Buffer recv, long count, DataType type,
                   ReduceOp reduceOp, int root, long sequence, boolean inPlace, Vectors vectors,
                   java.util.List<Call> members) {

    /** A call that is neither an uneven all-to-all nor a group. */
    public Call(Operation operation, Buffer send, Buffer recv, long count, DataType type,
                ReduceOp reduceOp, int root, long sequence, boolean inPlace) {
        this(operation, send, recv, count, type, reduceOp, root, sequence, inPlace, null, java.util.List.of());
    }

    /** Several calls issued as one; the group's sequence is that of its first collective, or -1. */
    public static Call group(java.util.List<Call> members) {
        long first = members.stream().filter(c -> c.operation().isCollective()).mapToLong(Call::sequence)
                .findFirst().orElse(-1);
        return new Call(Operation.GROUP, null, null, 0, DataType.INT8, null, -1, first, false, null,
                java.util.List.copyOf(members));
    }

    /** The same call with another sequence number (a group numbers its collectives when it is issued). */
    public Call withSequence(long s) {
        return new Call(operation, send, recv, count, type, reduceOp, root, s, inPlace, vectors, members);
    }

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
            case REDUCE_SCATTER, ALL_TO_ALL, SCATTER -> count * size;
            case ALL_TO_ALL_V -> vectors.sendExtent();
            case BARRIER, RECV, GROUP -> 0;
            default -> count;
        };
    }

    /** Elements of the output this call writes on a rank of a {@code size}-rank group (0 without an output). */
    public long recvElements(int size) {
        if (recv == null) {
            return 0;
        }
        return switch (operation) {
            case ALL_GATHER, ALL_TO_ALL, GATHER, SPLIT -> count * size;
            case ALL_TO_ALL_V -> vectors.recvExtent();
            case BARRIER, SEND, GROUP -> 0;
            default -> count;
        };
    }

    /** A short description for messages: {@code allReduce #12 (1000 x float32, sum)}. */
    public String describe() {
        StringBuilder b = new StringBuilder(operation.label());
        if (operation == Operation.GROUP) {
            return b.append(" of ").append(members.size()).append(" calls").append(members.stream().map(Call::describe)
                    .collect(java.util.stream.Collectors.joining(", ", " [", "]"))).toString();
        }
        if (sequence >= 0) {
            b.append(" #").append(sequence);
        }
        b.append(" (").append(vectors == null ? Long.toString(count) : "uneven").append(" x ").append(type);
        if (reduceOp != null) {
            b.append(", ").append(reduceOp);
        }
        if (root >= 0) {
            b.append(operation.isRooted() ? ", root " : ", peer ").append(root);
        }
        return b.append(')').toString();
    }
}
