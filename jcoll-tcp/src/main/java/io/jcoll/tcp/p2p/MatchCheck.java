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
        if (!expected.equals(actual)) {
            throw new CollectiveMismatchException(operation, rank, peer, "this rank is in " + expected.describe()
                    + " but rank " + peer + " sent data for " + actual.describe()
                    + "; every rank must issue the same collectives, in the same order, with the same arguments");
        }
        if (expectedBytes != actualBytes) {
            throw new ProtocolException(operation, rank, peer, "rank " + peer + " sent a message of " + actualBytes
                    + " bytes where " + expectedBytes + " were expected; ranks must use the same jcoll version "
                    + "and tuning settings");
        }
    }
}
