package io.jcoll.spi;

import java.util.Arrays;

/**
 * The per-peer layout of an uneven all-to-all: how many elements go to (come from) each rank, and where they
 * start in the send (receive) buffer. Arrays are indexed by rank and owned by this record: the validator
 * copies the caller's, so that a caller changing them later cannot change a call in flight.
 *
 * @param sendCounts  elements for each rank
 * @param sendOffsets where each rank's elements start in the send buffer
 * @param recvCounts  elements from each rank
 * @param recvOffsets where each rank's elements land in the receive buffer
 */
public record Vectors(long[] sendCounts, long[] sendOffsets, long[] recvCounts, long[] recvOffsets) {

    /** Elements of the send buffer the call reads: up to the end of its furthest block. */
    public long sendExtent() {
        return extent(sendCounts, sendOffsets);
    }

    /** Elements of the receive buffer the call writes: up to the end of its furthest block. */
    public long recvExtent() {
        return extent(recvCounts, recvOffsets);
    }

    /**
     * The block size if this rank's layout is an even all-to-all's (every count the same, both ways, blocks packed
     * from element 0), so that a transport that knows every rank's is even can run its plain all-to-all; -1
     * otherwise.
     */
    public long evenBlock() {
        long c = sendCounts.length == 0 ? 0 : sendCounts[0];
        for (int i = 0; i < sendCounts.length; i++) {
            if (sendCounts[i] != c || recvCounts[i] != c || sendOffsets[i] != i * c || recvOffsets[i] != i * c) {
                return -1;
            }
        }
        return c;
    }

    /** A prime below 2^31: pair terms stay below it, so that the terms of up to 2^32 ranks sum in a long. */
    public static final long PRIME = 2_147_483_647L;

    /**
     * This rank's share of a check that every pair's counts agree, as one number below {@link #PRIME}: with
     * weights w(s, r) every rank derives alike from the call's sequence number, it adds
     * {@code w(rank, r) * sendCounts[r]} over r and subtracts {@code w(s, rank) * recvCounts[s]} over s. The
     * ranks' terms sum to 0 modulo the prime exactly when every rank s's sendCounts[r] is rank r's
     * recvCounts[s] (but for a chance of one in two billion), so one small SUM (an allreduce, or the store)
     * checks a whole uneven all-to-all.
     *
     * @param sequence the call's sequence number (the same on every rank)
     * @param rank     this rank
     * @return the term, 0 to {@code PRIME - 1}
     */
    public long pairTerm(long sequence, int rank) {
        int n = sendCounts.length;
        long term = 0;
        for (int p = 0; p < n; p++) {
            term = Math.floorMod(term + pairWeight(sequence, n, rank, p) * (sendCounts[p] % PRIME), PRIME);
            term = Math.floorMod(term - pairWeight(sequence, n, p, rank) * (recvCounts[p] % PRIME), PRIME);
        }
        return term;
    }

    /** The weight of the pair (sender, receiver) in step {@code sequence}, the same on every rank. */
    private static long pairWeight(long sequence, int n, int sender, int receiver) {
        long z = (sequence * n + sender) * n + receiver + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return Math.floorMod(z ^ (z >>> 31), PRIME);
    }

    /** Packed offsets for {@code counts}: each block right after the one before. */
    public static long[] packed(long[] counts) {
        long[] offsets = new long[counts.length];
        long at = 0;
        for (int i = 0; i < counts.length; i++) {
            offsets[i] = at;
            at = Math.addExact(at, counts[i]);
        }
        return offsets;
    }

    private static long extent(long[] counts, long[] offsets) {
        long end = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                end = Math.max(end, offsets[i] + counts[i]);
            }
        }
        return end;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Vectors v && Arrays.equals(sendCounts, v.sendCounts) && Arrays.equals(sendOffsets, v.sendOffsets)
                && Arrays.equals(recvCounts, v.recvCounts) && Arrays.equals(recvOffsets, v.recvOffsets);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(sendCounts) * 31 + Arrays.hashCode(recvCounts);
    }

    @Override
    public String toString() {
        return "send " + Arrays.toString(sendCounts) + " at " + Arrays.toString(sendOffsets) + ", receive "
                + Arrays.toString(recvCounts) + " at " + Arrays.toString(recvOffsets);
    }
}
