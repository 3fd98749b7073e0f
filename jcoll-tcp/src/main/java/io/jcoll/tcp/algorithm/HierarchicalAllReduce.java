package io.jcoll.tcp.algorithm;

import io.jcoll.ReduceOp;

import java.util.ArrayList;
import java.util.List;

/**
 * AllReduce in two levels, for several hosts of several ranks each ({@link HostLayout#hierarchical()}): the
 * message is cut into one shard per rank of a host;
 * <ol>
 * <li>the ranks of each host reduce-scatter it (a ring among them): local rank l holds its host's sum of shard l;</li>
 * <li>the ranks holding shard l on the different hosts all-reduce it (a ring across the hosts: a reduce-scatter of
 *     its h parts, then an all-gather): each now holds the job's total of shard l;</li>
 * <li>the ranks of each host all-gather their shards.</li>
 * </ol>
 * With h hosts of L ranks, each host's link carries 2(h-1)/h of the message (L ranks, each 2(h-1)/h of a shard
 * of 1/L), where one ring over all n = hL ranks would carry 2(n-1)/n: two levels move a third less at 2 x 2 and
 * 43 % less at 2 x 4. The levels within a host go over its own loopback, which is much faster than its link.
 *
 * <p>All the steps are one {@link Pipeline#graph}: a segment goes up to the level across hosts as soon as the
 * host's reduce-scatter has completed it, and down into the host's all-gather as soon as it has come back, so the
 * link is busy while the host's own levels run, as a ring's steps overlap in a chain.
 *
 * <p>Every element is reduced once per level, in one order, on one rank, and then copied: every rank ends with
 * the same bits. AVG sums at both levels, and the last step across hosts divides by n: integer sums wrap, so
 * dividing at each level would not give the wrapped total divided by n.
 */
public final class HierarchicalAllReduce {

    private HierarchicalAllReduce() {
    }

    public static void run(AlgorithmContext ctx, Region send, Region recv, long count, ReduceOp op) {
        int[] beside = ctx.hosts().ranksBeside(ctx.rank());
        int[] across = ctx.hosts().ranksAcross(ctx.rank());
        AlgorithmContext host = ctx.within(beside);
        AlgorithmContext cross = ctx.within(across);
        ReduceOp sum = op == ReduceOp.AVG ? ReduceOp.SUM : op;
        Blocks shards = Blocks.even(count, host.size());
        int l = host.rank();
        Region mine = recv.plus(shards.start(l));
        Blocks parts = Blocks.even(shards.length(l), cross.size()); // the same on every host: the same shard
        int c = cross.rank();

        Pipeline.Leg[] up = RingReduceScatter.legs(host, send, shards, s -> recv.plus(shards.start(s)), sum, 1);
        Pipeline.Leg[] reduce = RingReduceScatter.legs(cross, mine, parts, p -> mine.plus(parts.start(p)), sum,
                op == ReduceOp.AVG ? ctx.size() : 1);
        Pipeline.Leg[] gather = RingAllGather.legs(cross, mine.plus(parts.start(c)), mine, parts);
        Pipeline.Leg[] down = RingAllGather.legs(host, mine, recv, shards);

        List<Pipeline.Leg> legs = new ArrayList<>();
        List<Pipeline.Feed[]> feeds = new ArrayList<>();
        // within the host: a chain from this rank's input
        addChain(legs, feeds, up, beside, new Pipeline.Feed[0]);
        int lastUp = legs.size() - 1;
        // across hosts: the first step sends a part of the shard that the host's last step completed
        addChain(legs, feeds, reduce, across, new Pipeline.Feed[] {new Pipeline.Feed(lastUp,
                reduce[0].source().element() - mine.element(), 0, reduce[0].sendCount())});
        int lastReduce = legs.size() - 1;
        // the all-gather's first step sends on this rank's part, which the last reduction completed
        addChain(legs, feeds, gather, across, new Pipeline.Feed[] {Pipeline.Feed.chain(lastReduce, gather[0])});
        // down into the host: the whole shard, each part from the step that completed it (this rank's own part
        // from the last reduction, part c - t - 1 from the all-gather's step t)
        Pipeline.Feed[] shard = new Pipeline.Feed[cross.size()];
        shard[0] = new Pipeline.Feed(lastReduce, 0, parts.start(c), parts.length(c));
        for (int t = 0; t < cross.size() - 1; t++) {
            int part = Math.floorMod(c - t - 1, cross.size());
            shard[t + 1] = new Pipeline.Feed(lastReduce + 1 + t, 0, parts.start(part), parts.length(part));
        }
        addChain(legs, feeds, down, beside, shard);
        Pipeline.graph(ctx, send.buffer().type().size(), legs.toArray(Pipeline.Leg[]::new),
                feeds.toArray(Pipeline.Feed[][]::new));
    }

    /**
     * Appends the steps of one ring, its peers renumbered from the ring's group to the whole group
     * ({@code members}): the first fed as {@code first} says, each later one by the one before, as in a chain.
     */
    private static void addChain(List<Pipeline.Leg> legs, List<Pipeline.Feed[]> feeds, Pipeline.Leg[] steps,
                                 int[] members, Pipeline.Feed[] first) {
        for (int s = 0; s < steps.length; s++) {
            Pipeline.Leg g = steps[s];
            Pipeline.Leg leg = new Pipeline.Leg(g.source(), g.sendCount(), members[g.to()], members[g.from()],
                    g.recvCount(), g.sink(), g.always());
            feeds.add(s == 0 ? first : new Pipeline.Feed[] {Pipeline.Feed.chain(legs.size() - 1, leg)});
            legs.add(leg);
        }
    }
}
