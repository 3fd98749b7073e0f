package io.jcoll.tcp.algorithm;

import io.jcoll.tcp.p2p.PointToPoint;

/**
 * Some ranks of a group, in an order of their own, seen as a group of their own: rank {@code i} of the view is rank
 * {@code members[i]} of the group under it. The algorithms then run unchanged over a ring in another order
 * ({@link HostLayout#ringOrder()}) or over the ranks of one host or one level of a hierarchy. Messages still go
 * over the connections of the group under it, in the order they are posted, so views used at once must not share a
 * pair of ranks: the levels of a hierarchy, streamed together in one pipeline, share none (a rank's peers within
 * its host are never its peers across hosts).
 */
final class GroupView implements PointToPoint {

    private final PointToPoint all;
    private final int[] members;
    private final int rank;

    GroupView(PointToPoint all, int[] members) {
        this.all = all;
        this.members = members.clone();
        int mine = -1;
        for (int i = 0; i < members.length; i++) {
            if (members[i] == all.rank()) {
                mine = i;
            }
        }
        if (mine < 0) {
            throw new IllegalArgumentException("rank " + all.rank() + " is not one of the view's ranks "
                    + java.util.Arrays.toString(members));
        }
        this.rank = mine;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return members.length;
    }

    @Override
    public Transfer send(int peer, java.nio.ByteBuffer src) {
        return all.send(members[peer], src);
    }

    @Override
    public Transfer recv(int peer, java.nio.ByteBuffer dst) {
        return all.recv(members[peer], dst);
    }

    @Override
    public void await(Transfer... transfers) {
        all.await(transfers);
    }

    @Override
    public boolean test(Transfer... transfers) {
        return all.test(transfers);
    }
}
