package io.jcoll.tcp.algorithm;

/**
 * Pairwise-exchange all-to-all. In step s (0 to n-1) rank r pairs with
 * {@code p = s - r (mod n)}, a symmetric pairing, and the two swap the blocks
 * meant for each other; the rank paired with itself copies its own block.
 * Each pair meets exactly once, and no rank waits on more than one peer at a
 * time. In place, a received segment is written only after the same segment
 * of the outgoing block has been sent.
 */
public final class PairwiseAllToAll {

    private PairwiseAllToAll() {
    }

    public static void run(AlgorithmContext ctx, Region send, Region recv, long countPerRank, boolean inPlace) {
        int n = ctx.size();
        int typeSize = send.buffer().type().size();
        int rank = ctx.rank();
        LocalOps.copy(send.plus(rank * countPerRank), recv.plus(rank * countPerRank), countPerRank, ctx.scratch());
        for (int s = 0; s < n; s++) {
            int peer = Math.floorMod(s - rank, n);
            if (peer == rank) {
                continue;
            }
            Region out = send.plus(peer * countPerRank);
            Region in = recv.plus(peer * countPerRank);
            Sink sink = inPlace ? Sink.afterArrival(in, ctx.scratch()) : Sink.into(in);
            Pipeline.exchange(ctx, out, countPerRank, peer, peer, countPerRank, sink, typeSize);
        }
    }
}
