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
 * a segment is only overwritten after it has been sent).
 */
public final class RingReduceScatter {

    private RingReduceScatter() {
    }

    /**
     * @param input       every rank's contribution, block i at {@code blocks.start(i)}
     * @param blocks      the block layout
     * @param accumulator where block i's partial sum is kept
     */
    public static void run(AlgorithmContext ctx, Region input, Blocks blocks, IntFunction<Region> accumulator,
                           ReduceOp op) {
        int n = ctx.size();
        int typeSize = input.buffer().type().size();
        for (int s = 0; s < n - 1; s++) {
            int sendBlock = ctx.peer(-s - 1);
            int recvBlock = ctx.peer(-s - 2);
            // the first partial sent is this rank's own input; later ones are what it accumulated
            Region source = s == 0 ? input.plus(blocks.start(sendBlock)) : accumulator.apply(sendBlock);
            Sink sink = Sink.reduce(input.plus(blocks.start(recvBlock)), accumulator.apply(recvBlock), op, ctx.scratch());
            Pipeline.exchange(ctx, source, blocks.length(sendBlock), ctx.peer(1),
                    ctx.peer(-1), blocks.length(recvBlock), sink, typeSize);
        }
    }
}
