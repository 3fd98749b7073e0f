package io.jcoll.tcp.algorithm;

/**
 * Ring all-gather, bandwidth-optimal: in n-1 steps each rank passes the block
 * it received last to its right neighbour. At step s rank r sends block r-s
 * and receives block r-s-1 (mod n), straight into place. The steps form one
 * {@link Pipeline#chain}: a segment goes on to the next step as soon as it has arrived.
 */
public final class RingAllGather {

    private RingAllGather() {
    }

    /**
     * @param own  this rank's block: sent from here at the first step, and copied into its place in {@code data}
     *             while the rank waits on the ring (nothing to copy when it is already there)
     * @param data receives every block at {@code blocks.start(i)}
     */
    public static void run(AlgorithmContext ctx, Region own, Region data, Blocks blocks) {
        int rank = ctx.rank();
        LocalCopy copy = new LocalCopy(own, data.plus(blocks.start(rank)), blocks.length(rank), ctx.scratch());
        Pipeline.chain(ctx, data.buffer().type().size(), copy, legs(ctx, own, data, blocks));
    }

    /** The steps, as the legs of a chain (its first sends {@code own}, each later one what its last received). */
    static Pipeline.Leg[] legs(AlgorithmContext ctx, Region own, Region data, Blocks blocks) {
        int n = ctx.size();
        Pipeline.Leg[] legs = new Pipeline.Leg[n - 1];
        for (int s = 0; s < n - 1; s++) {
            int sendBlock = ctx.peer(-s);
            int recvBlock = ctx.peer(-s - 1);
            Region source = s == 0 ? own : data.plus(blocks.start(sendBlock));
            legs[s] = new Pipeline.Leg(source, blocks.length(sendBlock), ctx.peer(1), ctx.peer(-1),
                    blocks.length(recvBlock), Sink.into(data.plus(blocks.start(recvBlock))));
        }
        return legs;
    }
}
