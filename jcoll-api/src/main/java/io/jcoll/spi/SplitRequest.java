package io.jcoll.spi;

/**
 * What a transport needs to form its side of a sub-communicator. Every rank of the parent asks at the same point
 * of the parent's order, a rank left out too (with no members), because MPI's and NCCL's splits are collective
 * over the parent. The members were agreed through the parent itself, so every transport sees the same group:
 * ranks of one color, ordered by key, then by parent rank (MPI_Comm_split's and ncclCommSplit's rule).
 *
 * @param color     this rank's color, or {@link io.jcoll.Communicator#NO_COLOR} if it is left out
 * @param key       this rank's key
 * @param members   the parent ranks of the new group, in its rank order; empty for a rank left out
 * @param rank      this rank's index in {@code members}, or -1
 * @param localRank this rank's index among the members on its host
 * @param localSize members on this host
 * @param scope     a name unique to this group within the parent and the same on its members, for store keys
 */
public record SplitRequest(int color, int key, int[] members, int rank, int localRank, int localSize, String scope) {

    /** Whether this rank takes part in a new group. */
    public boolean included() {
        return rank >= 0;
    }

    public int size() {
        return members.length;
    }
}
