package io.jcoll.tcp.algorithm;

import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reduce to one root. Small messages: recursive doubling, whose result the root keeps (log2 n latencies, as
 * the small allReduce). Large ones: a ring reduce-scatter, after which rank r holds block r's total, then a
 * gather of the blocks to the root: each rank sends (n-1)/n of the message, and the root receives as much, as
 * in MPI's reduce-scatter-gather algorithm. Every element is reduced once, in one order, on one rank.
 *
 * <p>Ranks other than the root have no output, so their partial sums live in a block-sized buffer of their own
 * (one block, reused at every step of the ring, as the out-of-place reduce-scatter does).
 */
public final class RootedReduce {

    private RootedReduce() {
    }

    /**
     * @param recv the root's output; null on other ranks
     */
    public static void run(AlgorithmContext ctx, Region send, Region recv, long count, ReduceOp op, int root) {
        int n = ctx.size();
        int typeSize = send.buffer().type().size();
        boolean isRoot = ctx.rank() == root;
        if (n == 1) {
            LocalCopy.now(send, recv, count, ctx.scratch());
            return;
        }
        if (count * typeSize <= ctx.tuning().smallAllReduceBytes()) {
            ByteBuffer all = RecursiveDoublingAllReduce.reduce(ctx, send, count, op);
            if (isRoot) {
                int bytes = (int) (count * typeSize);
                ByteBuffer out = recv.buffer().writable(recv.byteOffset(0), bytes, ctx.scratch().dstStage());
                out.put(0, all, 0, bytes);
                recv.buffer().commit(recv.byteOffset(0), out);
            }
            return;
        }
        Blocks blocks = Blocks.even(count, n);
        Region partials = isRoot ? null : ownBlock(send, blocks.length(0));
        RingReduceScatter.run(ctx, send, blocks,
                block -> isRoot ? recv.plus(blocks.start(block)) : partials, op);
        RootedExchange.gather(ctx, isRoot ? recv.plus(blocks.start(root)) : partials, isRoot ? recv : null, blocks, root);
    }

    /** A block-sized buffer for a non-root rank's partial sums (the root keeps them in its output). */
    private static Region ownBlock(Region like, long elements) {
        long bytes = elements * like.buffer().type().size();
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a reduce block of " + bytes + " bytes is too large to stage on the "
                    + "TCP transport; reduce in parts of under 2 GB per rank");
        }
        ByteBuffer memory = ByteBuffer.allocate((int) bytes).order(ByteOrder.nativeOrder());
        return new Region(HostBuffer.of(memory, like.buffer().type()), 0);
    }
}
