package io.jcoll.tcp.algorithm;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.kernels.Reductions;
import io.jcoll.tcp.p2p.PointToPoint;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Recursive-halving reduce-scatter for a power-of-two number of ranks and
 * messages that fit one segment: log2(n) steps instead of the ring's n-1, and,
 * unlike recursive doubling over the whole input, each step moves half of what
 * the one before did, (n-1)/n of the input in all, as the ring does. At the
 * step of distance d the ranks {@code r} and {@code r xor d} split the blocks
 * they are still reducing: each keeps the half holding its own block, sends
 * the other half to its partner and adds the partner's partials of its half.
 * After the last step a rank holds the total of its own block.
 */
public final class RecursiveHalvingReduceScatter {

    private RecursiveHalvingReduceScatter() {
    }

    /** Whether the algorithm applies: a power-of-two group. */
    public static boolean fits(int n) {
        return n > 1 && Integer.bitCount(n) == 1;
    }

    /**
     * @param send  n blocks of {@code count} elements, block i for rank i
     * @param recv  this rank's {@code count} reduced elements (may be this rank's block of {@code send})
     */
    public static void run(AlgorithmContext ctx, Region send, Region recv, long count, ReduceOp op) {
        PointToPoint p2p = ctx.p2p();
        DataType type = send.buffer().type();
        int n = ctx.size();
        int rank = ctx.rank();
        int block = (int) (count * type.size());
        ByteBuffer work = ctx.scratch().whole(0, block * n);
        work.put(0, send.buffer().readable(send.byteOffset(0), block * n, ctx.scratch().sendStage(0)), 0, block * n);
        ByteBuffer incoming = ctx.scratch().whole(1, block * n / 2);
        int first = 0; // the blocks this rank still reduces: [first, first + 2d)
        for (int d = n / 2; d >= 1; d >>= 1) {
            int partner = rank ^ d;
            int kept = (rank & d) == 0 ? first : first + d;
            int given = kept == first ? first + d : first;
            ByteBuffer mine = work.slice(kept * block, d * block).order(ByteOrder.nativeOrder());
            ByteBuffer theirs = incoming.slice(0, d * block).order(ByteOrder.nativeOrder());
            p2p.await(p2p.send(partner, work.slice(given * block, d * block)), p2p.recv(partner, theirs));
            Reductions.combine(type, op, mine, theirs, mine, (int) (d * count));
            first = kept;
        }
        ByteBuffer result = work.slice(rank * block, block).order(ByteOrder.nativeOrder());
        if (op == ReduceOp.AVG) {
            Reductions.divide(type, result, (int) count, n);
        }
        ByteBuffer out = recv.buffer().writable(recv.byteOffset(0), block, ctx.scratch().dstStage());
        out.put(0, result, 0, block);
        recv.buffer().commit(recv.byteOffset(0), out);
    }
}
