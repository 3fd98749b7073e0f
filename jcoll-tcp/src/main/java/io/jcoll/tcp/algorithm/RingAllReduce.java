package io.jcoll.tcp.algorithm;

import io.jcoll.ReduceOp;

import java.util.Arrays;

/**
 * Ring all-reduce for large messages: a ring reduce-scatter into the output's
 * blocks, then a ring all-gather of them. Each rank sends and receives
 * 2(n-1)/n of the message, which is optimal. Every element is reduced once,
 * on one rank, in one order, so all ranks end with identical bits.
 *
 * <p>The 2(n-1) steps of both phases are one {@link Pipeline#chain}: the all-gather's first step sends each
 * segment of this rank's block as soon as the reduce-scatter's last step has completed it.
 */
public final class RingAllReduce {

    private RingAllReduce() {
    }

    public static void run(AlgorithmContext ctx, Region send, Region recv, long count, ReduceOp op) {
        Blocks blocks = Blocks.even(count, ctx.size());
        Pipeline.Leg[] reduce = RingReduceScatter.legs(ctx, send, blocks, block -> recv.plus(blocks.start(block)), op);
        Pipeline.Leg[] gather = RingAllGather.legs(ctx, recv.plus(blocks.start(ctx.rank())), recv, blocks);
        Pipeline.Leg[] steps = Arrays.copyOf(reduce, reduce.length + gather.length);
        System.arraycopy(gather, 0, steps, reduce.length, gather.length);
        Pipeline.chain(ctx, send.buffer().type().size(), LocalCopy.NONE, steps);
    }
}
