package io.jcoll.tcp.algorithm;

/**
 * Gather and scatter: the root exchanges one block with every other rank, those legs sharing one
 * {@link Pipeline} (a slow rank does not hold up the others' segments), and copies its own block in the waits.
 * Each other rank has a single leg, with the root. The root's legs go in rank order from the root on, which is
 * also the order in which the ranks, each waiting only on the root, can serve it.
 */
public final class RootedExchange {

    private RootedExchange() {
    }

    /**
     * Rank {@code r}'s {@code length(r)} elements of {@code send} land at {@code blocks.start(r)} of the root's
     * {@code recv} (the root's own included).
     *
     * @param send   this rank's contribution
     * @param recv   the root's output (null elsewhere)
     * @param blocks where each rank's block lies in the root's output
     */
    public static void gather(AlgorithmContext ctx, Region send, Region recv, Blocks blocks, int root) {
        int n = ctx.size();
        int typeSize = send.buffer().type().size();
        if (ctx.rank() != root) {
            long mine = blocks.length(ctx.rank());
            Pipeline.exchange(ctx, send, mine, root, -1, 0, null, typeSize);
            return;
        }
        LocalCopy own = new LocalCopy(send, recv.plus(blocks.start(root)), blocks.length(root), ctx.scratch());
        Pipeline.Leg[] legs = new Pipeline.Leg[n - 1];
        for (int s = 1; s < n; s++) {
            int peer = (root + s) % n;
            legs[s - 1] = new Pipeline.Leg(null, 0, -1, peer, blocks.length(peer),
                    Sink.into(recv.plus(blocks.start(peer))));
        }
        Pipeline.exchange(ctx, typeSize, own, legs);
    }

    /**
     * Block {@code blocks.start(r)} of the root's {@code send} lands in rank {@code r}'s {@code recv} (the root's
     * own included).
     *
     * @param send   the root's input (null elsewhere)
     * @param recv   this rank's output
     * @param blocks where each rank's block lies in the root's input
     */
    public static void scatter(AlgorithmContext ctx, Region send, Region recv, Blocks blocks, int root) {
        int n = ctx.size();
        int typeSize = recv.buffer().type().size();
        if (ctx.rank() != root) {
            Pipeline.exchange(ctx, null, 0, -1, root, blocks.length(ctx.rank()), Sink.into(recv), typeSize);
            return;
        }
        LocalCopy own = new LocalCopy(send.plus(blocks.start(root)), recv, blocks.length(root), ctx.scratch());
        Pipeline.Leg[] legs = new Pipeline.Leg[n - 1];
        for (int s = 1; s < n; s++) {
            int peer = (root + s) % n;
            legs[s - 1] = new Pipeline.Leg(send.plus(blocks.start(peer)), blocks.length(peer), peer, -1, 0, null);
        }
        Pipeline.exchange(ctx, typeSize, own, legs);
    }
}
