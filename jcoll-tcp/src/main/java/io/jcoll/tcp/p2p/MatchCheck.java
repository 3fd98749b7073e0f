package io.jcoll.tcp.p2p;

import io.jcoll.spi.Signature;
import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.ProtocolException;

/**
 * Checks an incoming message against what the receiver is doing, before any
 * of its payload is read: the same operation at the same step, and exactly
 * the expected length. Shared by every {@link PointToPoint} implementation.
 */
public final class MatchCheck {

    private MatchCheck() {
    }

    /**
     * @param operation label of the receiver's operation, for the message
     * @throws CollectiveMismatchException if the sender is in another operation
     * @throws ProtocolException if the signatures match but the length does not
     */
    public static void check(String operation, int rank, int peer, Signature expected, int expectedBytes,
                             Signature actual, int actualBytes) {
        check(operation, rank, peer, expected, expectedBytes, 0, actual, actualBytes, 0);
    }

    /**
     * As {@link #check(String, int, int, Signature, int, Signature, int)}, and the two ranks' digests of the
     * collectives each completed before this message ({@link Signature#foldInto}) must be equal.
     *
     * @throws CollectiveMismatchException also if the histories differ
     */
    public static void check(String operation, int rank, int peer, Signature expected, int expectedBytes,
                             long expectedHistory, Signature actual, int actualBytes, long actualHistory) {
        boolean onlyPairCountDiffers = expected.operation() == io.jcoll.spi.Operation.ALL_TO_ALL_V.ordinal()
                && expected.count() != actual.count() && expected.withCount(actual.count()).equals(actual);
        if (onlyPairCountDiffers) {
            throw new CollectiveMismatchException(operation, rank, peer, "in " + expected.withCount(0).describe()
                    + " rank " + peer + " sends this rank " + actual.count() + " elements but this rank expects "
                    + expected.count() + " from it; a rank's sendCounts[r] must equal rank r's recvCounts for it");
        }
        if (!expected.equals(actual)) {
            throw new CollectiveMismatchException(operation, rank, peer, "this rank is in " + expected.describe()
                    + " but rank " + peer + " sent data for " + actual.describe()
                    + "; every rank must issue the same collectives, in the same order, with the same arguments");
        }
        if (expectedHistory != actualHistory) {
            throw new CollectiveMismatchException(operation, rank, peer, "rank " + peer + " and this rank disagree "
                    + "about an earlier collective (before " + expected.describe() + "): one of them was called with "
                    + "other arguments on one of the two (a different root, count, type or op) and completed without "
                    + "either noticing, so their data may already differ; every rank must issue the same collectives, "
                    + "in the same order, with the same arguments");
        }
        if (expectedBytes != actualBytes) {
            throw new ProtocolException(operation, rank, peer, "rank " + peer + " sent a message of " + actualBytes
                    + " bytes where " + expectedBytes + " were expected; ranks must use the same jcoll version "
                    + "and tuning settings");
        }
    }
}
