package io.jcoll.tcp.algorithm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which ranks of a group share a host, learned from the ranks' host identities: the order in which rings visit the
 * ranks, and whether a collective can go in two levels, within hosts and then across them.
 *
 * <p>A ring that follows rank order crosses between hosts wherever two neighbours in rank order sit on different
 * hosts: with ranks {0,2} on one host and {1,3} on another, every step of it crosses, and each host's link carries
 * twice what it would if each host's ranks were neighbours. So rings follow {@link #ringOrder()}: hosts in the order
 * of their lowest rank, each host's ranks together in rank order; a ring then crosses each host's link once each way.
 *
 * <p>With several hosts of several ranks each ({@link #hierarchical()}), an AllReduce goes further
 * ({@link HierarchicalAllReduce}): the ranks of each host reduce-scatter among themselves, the ranks that hold the
 * same shard on different hosts all-reduce it, and each host all-gathers its shards. Each host's link then carries
 * 2(h-1)/h of the message for h hosts, against 2(n-1)/n for the best ring over all n ranks.
 */
public final class HostLayout {

    private final int[] hostOf;      // by rank: hosts numbered 0.. in the order of their lowest rank
    private final int[][] ranksOn;   // by host: its ranks, ascending
    private final int[] ringOrder;   // position -> rank
    private final int[] ringPosition; // rank -> position
    private final boolean ringFollowsRanks;
    private final boolean twoLevels; // whether a hierarchy is allowed at all (JCOLL_TCP_HIERARCHY)

    private HostLayout(int[] hostOf, int[][] ranksOn, boolean twoLevels) {
        this.hostOf = hostOf;
        this.ranksOn = ranksOn;
        this.ringOrder = Arrays.stream(ranksOn).flatMapToInt(Arrays::stream).toArray();
        this.ringPosition = new int[ringOrder.length];
        boolean inOrder = true;
        for (int p = 0; p < ringOrder.length; p++) {
            ringPosition[ringOrder[p]] = p;
            inOrder &= ringOrder[p] == p;
        }
        this.ringFollowsRanks = inOrder;
        this.twoLevels = twoLevels;
    }

    /** A group whose placement is unknown or does not matter: rings in rank order, no hierarchy. */
    public static HostLayout rankOrder(int size) {
        int[][] each = new int[size][];
        int[] hostOf = new int[size];
        for (int r = 0; r < size; r++) {
            each[r] = new int[] {r};
            hostOf[r] = r;
        }
        return new HostLayout(hostOf, each, false);
    }

    /**
     * The layout of ranks whose host identities are {@code hostIds} (by rank; equal on the ranks of one host).
     *
     * @param hierarchy whether a two-level AllReduce may be chosen where the layout allows one
     */
    public static HostLayout of(long[] hostIds, boolean hierarchy) {
        Map<Long, List<Integer>> byHost = new LinkedHashMap<>(); // in the order of each host's lowest rank
        for (int r = 0; r < hostIds.length; r++) {
            byHost.computeIfAbsent(hostIds[r], h -> new ArrayList<>()).add(r);
        }
        int[][] ranksOn = new int[byHost.size()][];
        int[] hostOf = new int[hostIds.length];
        int h = 0;
        for (List<Integer> ranks : byHost.values()) {
            ranksOn[h] = ranks.stream().mapToInt(Integer::intValue).toArray();
            for (int r : ranksOn[h]) {
                hostOf[r] = h;
            }
            h++;
        }
        return new HostLayout(hostOf, ranksOn, hierarchy);
    }

    public int size() {
        return hostOf.length;
    }

    public int hosts() {
        return ranksOn.length;
    }

    /** Ranks on every host, where every host has as many; -1 where they differ. */
    public int ranksPerHost() {
        int each = ranksOn[0].length;
        for (int[] ranks : ranksOn) {
            if (ranks.length != each) {
                return -1;
            }
        }
        return each;
    }

    /**
     * Whether an AllReduce goes in two levels: allowed, several hosts, and several ranks on each, as many on every
     * host (so that every shard has one holder on each host).
     */
    public boolean hierarchical() {
        return twoLevels && hosts() > 1 && ranksPerHost() > 1;
    }

    /** The ranks in the order rings visit them: each host's together. */
    public int[] ringOrder() {
        return ringOrder.clone();
    }

    /** Whether rings can follow rank order as it is (each host's ranks are already neighbours). */
    public boolean ringFollowsRanks() {
        return ringFollowsRanks;
    }

    /** Where {@code rank} stands in {@link #ringOrder()}. */
    public int ringPosition(int rank) {
        return ringPosition[rank];
    }

    /** The ranks on {@code rank}'s host, ascending: the lower level of a hierarchy. */
    public int[] ranksBeside(int rank) {
        return ranksOn[hostOf[rank]].clone();
    }

    /**
     * The rank that stands where {@code rank} stands among its host's ranks, on each host in host order: the upper
     * level of a hierarchy (needs {@link #ranksPerHost()} {@code > 0}).
     */
    public int[] ranksAcross(int rank) {
        int index = Arrays.binarySearch(ranksOn[hostOf[rank]], rank);
        int[] across = new int[hosts()];
        for (int h = 0; h < across.length; h++) {
            across[h] = ranksOn[h][index];
        }
        return across;
    }

    /** For people: how many hosts, how many ranks each, and what the collectives do with it. */
    public String describe() {
        if (hosts() == 1) {
            return "all " + size() + " ranks on one host";
        }
        int each = ranksPerHost();
        String shape = each > 0 ? hosts() + " hosts x " + each + " rank" + (each == 1 ? "" : "s")
                : hosts() + " hosts with " + Arrays.stream(ranksOn).mapToInt(r -> r.length)
                        .mapToObj(Integer::toString).reduce((a, b) -> a + "/" + b).orElse("") + " ranks";
        String rings = ringFollowsRanks() ? "rings in rank order (each host's ranks are neighbours)"
                : "rings in host order " + Arrays.toString(ringOrder) + " (ranks of a host are not neighbours in rank order)";
        String allReduce = hierarchical() ? "; large AllReduce in two levels (reduce-scatter within each host, "
                + "all-reduce across hosts, all-gather within each host)"
                : each > 1 && hosts() > 1 && !twoLevels ? "; AllReduce in one ring (JCOLL_TCP_HIERARCHY=0)" : "";
        return shape + ": " + rings + allReduce;
    }
}
