package io.jcoll.tcp.algorithm;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.kernels.Reductions;
import io.jcoll.tcp.p2p.PointToPoint;

import java.nio.ByteBuffer;

/**
 * Recursive-doubling all-reduce for small messages: log2(n) rounds in which
 * partners {@code r xor 2^k} swap their whole partial results, so latency
 * grows with log n instead of n. With n not a power of two, the ranks above
 * the largest power p first fold their data into rank {@code r - p} and get
 * the result back at the end. Partners combine in opposite operand order;
 * all reduce ops are commutative element-wise, so every rank gets the same bits.
 */
public final class RecursiveDoublingAllReduce {

    private RecursiveDoublingAllReduce() {
    }

    public static void run(AlgorithmContext ctx, Region send, Region recv, long count, ReduceOp op) {
        int bytes = (int) (count * send.buffer().type().size());
        ByteBuffer work = reduce(ctx, send, count, op);
        ByteBuffer out = recv.buffer().writable(recv.byteOffset(0), bytes, ctx.scratch().dstStage());
        out.put(0, work, 0, bytes);
        recv.buffer().commit(recv.byteOffset(0), out);
    }

    /**
     * The reduction itself: every rank ends with the {@code count} reduced elements in the returned scratch
     * buffer (valid until the next small-message algorithm runs). The input is read once, first, so it may
     * overlap whatever the caller writes the result to.
     */
    static ByteBuffer reduce(AlgorithmContext ctx, Region send, long count, ReduceOp op) {
        PointToPoint p2p = ctx.p2p();
        DataType type = send.buffer().type();
        int n = ctx.size();
        int rank = ctx.rank();
        int bytes = (int) (count * type.size());
        ByteBuffer work = ctx.scratch().whole(0, bytes);
        ByteBuffer incoming = ctx.scratch().whole(1, bytes);
        work.put(0, send.buffer().readable(send.byteOffset(0), bytes, ctx.scratch().sendStage(0)), 0, bytes);

        int p = Integer.highestOneBit(n);
        int extra = n - p;
        if (rank >= p) {
            // fold into the partner, then receive the finished result from it
            p2p.await(p2p.send(rank - p, work.clear().limit(bytes)));
            p2p.await(p2p.recv(rank - p, work.clear().limit(bytes)));
        } else {
            if (rank < extra) {
                p2p.await(p2p.recv(rank + p, incoming.clear().limit(bytes)));
                Reductions.combine(type, op, work, incoming, work, (int) count);
            }
            for (int mask = 1; mask < p; mask <<= 1) {
                int partner = rank ^ mask;
                p2p.await(p2p.send(partner, work.clear().limit(bytes)), p2p.recv(partner, incoming.clear().limit(bytes)));
                Reductions.combine(type, op, work, incoming, work, (int) count);
            }
            if (op == ReduceOp.AVG) {
                Reductions.divide(type, work, (int) count, n);
            }
            if (rank < extra) {
                p2p.await(p2p.send(rank + p, work.clear().limit(bytes)));
            }
        }
        return work.clear();
    }
}
