package io.jcoll.tcp;

import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.spi.Signature;
import io.jcoll.tcp.p2p.Frame;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank whose calls all completed learns at close what its peer's goodbye says: the same digest (nothing to
 * report), another digest, an abort, or no goodbye at all because the peer's stream ended first. The peer here is
 * a raw socket, so that each ending can be made exactly, including the reset a peer's kernel sends when the peer
 * closes with this rank's bytes unread, which makes this rank's own goodbye fail to write.
 */
class TcpLinkCloseTest {

    private static final long HISTORY = 0x5eed_c0ffeeL;

    @Test
    void aGoodbyeWithTheSameDigestReportsNothing() throws IOException {
        assertNull(closeAfter(peer -> {
            peer.write(goodbye(HISTORY));
            peer.shutdownOutput();
        }));
    }

    @Test
    void aGoodbyeWithAnotherDigestIsADisagreement() throws IOException {
        JcollException e = closeAfter(peer -> {
            peer.write(goodbye(HISTORY + 1));
            peer.shutdownOutput();
        });
        assertInstanceOf(CollectiveMismatchException.class, e);
        assertEquals(1, e.peer(), e.getMessage());
    }

    /**
     * The peer aborts (it found the ranks disagree, say) and closes while this rank's bytes lie unread on its side:
     * the reset reaches this rank before it closes, so its goodbye fails to write. The abort, queued before the
     * reset, must still be read and reported.
     */
    @Test
    void anAbortFollowedByAResetBeforeThisRankClosesIsReported() throws IOException {
        String reason = "rank 1 expects 3 elements from rank 0, which sends 5";
        JcollException e = closeAfter(peer -> {
            peer.write(abort(reason));
            reset(peer);
        });
        assertInstanceOf(PeerFailureException.class, e);
        assertEquals(1, e.peer(), e.getMessage());
        assertTrue(e.getMessage().endsWith(reason), e.getMessage());
    }

    @Test
    void aStreamThatEndsWithoutAGoodbyeNamesThePeer() throws IOException {
        assertLeftWithoutGoodbye(closeAfter(SocketChannel::close));
    }

    /** Here the reset makes rank 0's goodbye fail to write, and what it reads after is the end of the stream. */
    @Test
    void aResetWithoutAGoodbyeNamesThePeer() throws IOException {
        assertLeftWithoutGoodbye(closeAfter(TcpLinkCloseTest::reset));
    }

    private static void assertLeftWithoutGoodbye(JcollException e) {
        assertInstanceOf(PeerFailureException.class, e);
        assertEquals(1, e.peer(), e.getMessage());
        assertTrue(e.getMessage().contains("rank 1's connection ended before its goodbye"), e.getMessage());
    }

    private interface PeerEnding {
        void run(SocketChannel peer) throws IOException;
    }

    /** Rank 0 of 2 closes its link (digest {@link #HISTORY}) once rank 1, a raw socket, has ended as given. */
    private static JcollException closeAfter(PeerEnding ending) throws IOException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel peer = SocketChannel.open(listener.getLocalAddress());
             SocketChannel mine = listener.accept()) {
            TcpLink link = new TcpLink(0, 2, new Connection[] {null, new Connection(1, mine)}, 0, false);
            ending.run(peer);
            try {
                Thread.sleep(200); // the peer's last segment, a reset included, has arrived before rank 0 closes
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            return link.close(HISTORY);
        }
    }

    /** A close with linger zero: the kernel sends a reset, as it does when a socket closes with unread data. */
    private static void reset(SocketChannel peer) throws IOException {
        peer.setOption(StandardSocketOptions.SO_LINGER, 0);
        peer.close();
    }

    private static ByteBuffer goodbye(long history) {
        ByteBuffer b = ByteBuffer.allocate(Frame.HEADER_BYTES);
        Frame.encode(b, Frame.CLOSE, 0, new Signature(0, 0, -1, -1, 0, -1), 0, history);
        return b;
    }

    /** Rank 1's ABORT frame (its root field names the failed rank: rank 1 itself). */
    private static ByteBuffer abort(String reason) {
        return TcpLinkReceiveTest.frame(Frame.ABORT, reason.getBytes(StandardCharsets.UTF_8),
                new Signature(0, 0, -1, 1, 0, -1));
    }
}
