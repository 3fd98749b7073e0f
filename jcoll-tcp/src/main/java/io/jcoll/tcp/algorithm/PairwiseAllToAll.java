package io.jcoll.tcp.algorithm;

/**
 * Pairwise-exchange all-to-all. In step s rank r pairs with a partner p and the
 * two swap the blocks meant for each other: with n a power of two,
 * {@code p = r xor s} for s = 1 to n-1 (every rank busy at every step); otherwise
 * {@code p = s - r (mod n)} for s = 0 to n-1, where a rank paired with itself sits
 * the step out. Each pair meets exactly once. The steps share one {@link Pipeline}: the next step's
 * segments go out while the last ones of the step before are still moving (so a rank may be exchanging with
 * two partners at once), and a rank whose partner is late does not hold up the steps after it (each pair's
 * messages still keep step order on their connection). In place, a received segment
 * is written only after the same segment of the outgoing block has been sent.
 *
 * <p>The blocks may differ from pair to pair (an uneven all-to-all, MPI_Alltoallv): each leg sends and receives
 * its own lengths, and then every pair exchanges at least one message each way, so that a receiver always sees
 * the count its sender meant, even where it expects nothing.
 */
public final class PairwiseAllToAll {

    private PairwiseAllToAll() {
    }

    /**
     * @param blocks where the block for (and from) each rank lies, the same in input and output: whole blocks,
     *               or one channel's part of each
     */
    public static void run(AlgorithmContext ctx, Region send, Region recv, Blocks blocks, boolean inPlace) {
        run(ctx, send, recv, blocks, blocks, inPlace, false);
    }

    /**
     * @param sendBlocks where the block for each rank lies in the input
     * @param recvBlocks where the block from each rank lands in the output
     * @param uneven     whether the two ends of a pair may disagree about its lengths (then each pair always
     *                   exchanges a message, so the disagreement is seen)
     */
    public static void run(AlgorithmContext ctx, Region send, Region recv, Blocks sendBlocks, Blocks recvBlocks,
                           boolean inPlace, boolean uneven) {
        int n = ctx.size();
        int typeSize = send.buffer().type().size();
        int rank = ctx.rank();
        // this rank's own block is copied in the waits for its partners' (nothing to do in place)
        LocalCopy own = new LocalCopy(send.plus(sendBlocks.start(rank)), recv.plus(recvBlocks.start(rank)),
                recvBlocks.length(rank), ctx.scratch());
        boolean powerOfTwo = Integer.bitCount(n) == 1;
        Pipeline.Leg[] legs = new Pipeline.Leg[n - 1];
        int step = 0;
        for (int s = powerOfTwo ? 1 : 0; s < n; s++) {
            int peer = powerOfTwo ? rank ^ s : Math.floorMod(s - rank, n);
            if (peer == rank) {
                continue;
            }
            Region in = recv.plus(recvBlocks.start(peer));
            Sink sink = inPlace ? Sink.afterArrival(in, ctx.scratch()) : Sink.into(in);
            legs[step++] = new Pipeline.Leg(send.plus(sendBlocks.start(peer)), sendBlocks.length(peer), peer, peer,
                    recvBlocks.length(peer), sink, uneven);
        }
        Pipeline.exchange(ctx, typeSize, own, legs);
    }
}
