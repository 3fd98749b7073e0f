package io.jcoll.internal;

import io.jcoll.Communicator;
import io.jcoll.spi.SplitRequest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Turns every rank's (color, key, host), as the split's exchange gathered them, into this rank's new group:
 * the ranks of its color ordered by key, then by parent rank, and its local rank among those on its host.
 */
final class SplitGroups {

    private SplitGroups() {
    }

    /**
     * @param rank  this rank, in the parent
     * @param all   three numbers per parent rank: color, key, host
     * @param scope a prefix unique to this split within the parent
     */
    static SplitRequest request(int rank, long[] all, String scope) {
        int n = all.length / 3;
        int color = (int) all[3 * rank];
        int key = (int) all[3 * rank + 1];
        if (color == Communicator.NO_COLOR) {
            return new SplitRequest(color, key, new int[0], -1, -1, 0, scope);
        }
        List<Integer> members = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            if (all[3 * r] == color) {
                members.add(r);
            }
        }
        members.sort(Comparator.<Integer>comparingLong(r -> all[3 * r + 1]).thenComparingInt(r -> r));
        int[] ordered = members.stream().mapToInt(Integer::intValue).toArray();
        int newRank = members.indexOf(rank);
        long host = all[3 * rank + 2];
        int localRank = 0;
        int localSize = 0;
        for (int i = 0; i < ordered.length; i++) {
            if (all[3 * ordered[i] + 2] == host) {
                localSize++;
                if (i < newRank) {
                    localRank++;
                }
            }
        }
        return new SplitRequest(color, key, ordered, newRank, localRank, localSize, scope + "color" + color + "/");
    }
}
