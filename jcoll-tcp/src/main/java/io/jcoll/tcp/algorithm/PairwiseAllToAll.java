package io.jcoll.tcp.algorithm;

/**
 * Pairwise-exchange all-to-all. In step s rank r pairs with a partner p and the
 * two swap the blocks meant for each other: with n a power of two,
 * {@code p = r xor s} for s = 1 to n-1 (every rank busy at every step); otherwise
 * {@code p = s - r (mod n)} for s = 0 to n-1, where a rank paired with itself sits
 * the step out. Each pair meets exactly once, and no rank waits on more than one
 * peer at a time. In place, a received segment is written only after the same segment
 * of the outgoing block has been sent.
 */
public final class PairwiseAllToAll {

    private PairwiseAllToAll() {
    }

    /**
     * @param blocks where the block for (and from) each rank lies, the same in input and output: whole blocks,
     *               or one channel's part of each
     */
    public static void run(AlgorithmContext ctx, Region send, Region recv, Blocks blocks, boolean inPlace) {
        int n = ctx.size();
        int typeSize = send.buffer().type().size();
        int rank = ctx.rank();
        LocalOps.copy(send.plus(blocks.start(rank)), recv.plus(blocks.start(rank)), blocks.length(rank), ctx.scratch());
        boolean powerOfTwo = Integer.bitCount(n) == 1;
        for (int s = powerOfTwo ? 1 : 0; s < n; s++) {
            int peer = powerOfTwo ? rank ^ s : Math.floorMod(s - rank, n);
            if (peer == rank) {
                continue;
            }
            Region out = send.plus(blocks.start(peer));
            Region in = recv.plus(blocks.start(peer));
            Sink sink = inPlace ? Sink.afterArrival(in, ctx.scratch()) : Sink.into(in);
            Pipeline.exchange(ctx, out, blocks.length(peer), peer, peer, blocks.length(peer), sink, typeSize);
        }
    }
}
