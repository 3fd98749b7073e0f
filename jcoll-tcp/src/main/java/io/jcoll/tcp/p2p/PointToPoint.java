package io.jcoll.tcp.p2p;

import io.jcoll.spi.Signature;
import java.nio.ByteBuffer;

/**
 * The narrow interface every collective algorithm is written against: post a
 * send or a receive of one message to or from a peer, then wait for posted
 * transfers. Messages between two ranks arrive in the order they were sent;
 * a receive must name exactly the length that was sent.
 *
 * <p>The same algorithms run over TCP sockets and over an in-memory fabric in
 * tests. Implementations check each incoming message against the receiver's
 * current {@link Signature} and expected length, and fail with an exception
 * that names the peer.
 */
public interface PointToPoint {

    int rank();

    int size();

    /**
     * Starts sending {@code src}'s remaining bytes. The caller must not touch
     * those bytes until the transfer is done.
     */
    Transfer send(int peer, ByteBuffer src);

    /** Starts receiving exactly {@code dst.remaining()} bytes into {@code dst}. */
    Transfer recv(int peer, ByteBuffer dst);

    /** Waits until every given transfer is done, making progress on all posted transfers meanwhile. */
    void await(Transfer... transfers);

    /**
     * Makes what progress it can on the posted transfers without waiting, and says whether every given one is
     * done: so that a rank can do its own local work (a copy of its own block) in the time it would otherwise
     * spend waiting on its peers. Tests the transfers in the order {@link #await} would wait on them.
     */
    boolean test(Transfer... transfers);

    /** A posted send or receive. */
    interface Transfer {
        boolean isDone();
    }
}
