package io.jcoll.tcp.algorithm;

import io.jcoll.ReduceOp;

import java.util.function.IntFunction;

/**
 * Ring reduce-scatter, bandwidth-optimal: in n-1 steps each rank sends one
 * block's partial result to its right neighbour and adds its own contribution
 * to the partial arriving from its left, so that block r's total ends on rank r.
 * Every rank moves (n-1)/n of the message once.
 *
 * <p>At step s rank r sends the partial of block r-s-1 and receives that of
 * block r-s-2 (mod n). Partials are kept where {@code accumulator} says: in the
 * output's own block (allReduce, in-place reduceScatter), or in one
 * block-sized output reused at every step (out-of-place reduceScatter, where
 * a segment is only overwritten after it has been sent). The steps form one
 * {@link Pipeline#chain}: a segment's partial goes on to the next step as soon
 * as it has been reduced.
 */
public final class RingReduceScatter {

    private RingReduceScatter() {
    }

    /**
     * @param input       every rank's contribution, block i at {@code blocks.start(i)}
     * @param blocks      the block layout
     * @param accumulator where block i's partial sum is kept
     * @param op          the reduction; AVG's totals are divided by the group's size as they are completed
     */
    public static void run(AlgorithmContext ctx, Region input, Blocks blocks, IntFunction<Region> accumulator,
                           ReduceOp op) {
        Pipeline.chain(ctx, input.buffer().type().size(), LocalCopy.NONE, legs(ctx, input, blocks, accumulator, op));
    }

    /** The steps, as the legs of a chain (its first sends this rank's input, each later one what its last reduced). */
    static Pipeline.Leg[] legs(AlgorithmContext ctx, Region input, Blocks blocks, IntFunction<Region> accumulator,
                               ReduceOp op) {
        return legs(ctx, input, blocks, accumulator, op, op == ReduceOp.AVG ? ctx.size() : 1);
    }

    /**
     * As {@link #legs(AlgorithmContext, Region, Blocks, IntFunction, ReduceOp)}, with AVG's division by
     * {@code divisor} at the last step (1: none; a level of a hierarchy sums, and the last divides by every rank).
     */
    static Pipeline.Leg[] legs(AlgorithmContext ctx, Region input, Blocks blocks, IntFunction<Region> accumulator,
                               ReduceOp op, int divisor) {
        int n = ctx.size();
        Pipeline.Leg[] legs = new Pipeline.Leg[n - 1];
        for (int s = 0; s < n - 1; s++) {
            int sendBlock = ctx.peer(-s - 1);
            int recvBlock = ctx.peer(-s - 2);
            // the first partial sent is this rank's own input; later ones are what it accumulated
            Region source = s == 0 ? input.plus(blocks.start(sendBlock)) : accumulator.apply(sendBlock);
            // the last step completes this rank's block: AVG divides it there, while the segment is in cache
            Sink sink = Sink.reduce(input.plus(blocks.start(recvBlock)), accumulator.apply(recvBlock), op,
                    s == n - 2 ? divisor : 1, ctx.scratch());
            legs[s] = new Pipeline.Leg(source, blocks.length(sendBlock), ctx.peer(1), ctx.peer(-1),
                    blocks.length(recvBlock), sink);
        }
        return legs;
    }
}
