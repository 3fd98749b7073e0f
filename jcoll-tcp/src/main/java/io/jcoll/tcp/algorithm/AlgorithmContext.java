package io.jcoll.tcp.algorithm;

import io.jcoll.tcp.p2p.PointToPoint;

/**
 * What an algorithm runs with: the point-to-point layer, scratch memory, tuning, and which ranks share a host.
 *
 * @param hosts where the ranks are: rings follow its order, and AllReduce may go in two levels
 */
public record AlgorithmContext(PointToPoint p2p, Scratch scratch, Tuning tuning, HostLayout hosts) {

    /** A context whose ranks' placement is unknown or does not matter: rings follow rank order. */
    public AlgorithmContext(PointToPoint p2p, Scratch scratch, Tuning tuning) {
        this(p2p, scratch, tuning, HostLayout.rankOrder(p2p.size()));
    }

    public AlgorithmContext {
        if (hosts.size() != p2p.size()) {
            throw new IllegalArgumentException("a layout of " + hosts.size() + " ranks for a group of " + p2p.size());
        }
    }

    public int rank() {
        return p2p.rank();
    }

    public int size() {
        return p2p.size();
    }

    /** {@code (rank + delta) mod size}, for ring and pairing arithmetic. */
    public int peer(int delta) {
        return Math.floorMod(p2p.rank() + delta, p2p.size());
    }

    /**
     * The same ranks numbered in ring order ({@link HostLayout#ringOrder()}), so that a ring run over it crosses
     * each host's link once each way: rank {@code i} of the result is rank {@code ringOrder[i]} here. This context
     * itself where rank order already is ring order.
     */
    AlgorithmContext hostOrdered() {
        return hosts.ringFollowsRanks() ? this : within(hosts.ringOrder());
    }

    /** The ranks {@code members} (this rank among them) as a group of their own, numbered in that order. */
    AlgorithmContext within(int[] members) {
        return new AlgorithmContext(new GroupView(p2p, members), scratch, tuning);
    }

    /** {@code blocks} (block i belongs to rank i) as a ring over {@link #hostOrdered()} finds them. */
    Blocks inRingOrder(Blocks blocks) {
        return hosts.ringFollowsRanks() ? blocks : Blocks.permuted(blocks, hosts.ringOrder());
    }
}
