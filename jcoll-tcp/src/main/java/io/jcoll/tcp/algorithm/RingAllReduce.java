package io.jcoll.tcp.algorithm;

import io.jcoll.ReduceOp;

/**
 * Ring all-reduce for large messages: a ring reduce-scatter into the output's
 * blocks, then a ring all-gather of them. Each rank sends and receives
 * 2(n-1)/n of the message, which is optimal. Every element is reduced once,
 * on one rank, in one order, so all ranks end with identical bits.
 */
public final class RingAllReduce {

    private RingAllReduce() {
    }

    public static void run(AlgorithmContext ctx, Region send, Region recv, long count, ReduceOp op) {
        Blocks blocks = Blocks.even(count, ctx.size());
        RingReduceScatter.run(ctx, send, blocks, block -> recv.plus(blocks.start(block)), op);
        int mine = ctx.rank();
        if (op == ReduceOp.AVG) {
            LocalOps.divide(recv.plus(blocks.start(mine)), blocks.length(mine), ctx.size(), ctx.scratch());
        }
        RingAllGather.run(ctx, recv, blocks);
    }
}
