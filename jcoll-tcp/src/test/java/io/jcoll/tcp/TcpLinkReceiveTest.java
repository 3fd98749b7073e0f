package io.jcoll.tcp;

import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.exceptions.ProtocolException;
import io.jcoll.spi.Signature;
import io.jcoll.tcp.p2p.Frame;
import io.jcoll.tcp.p2p.PointToPoint;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receive path reads a frame's header and the start of its payload in one system call, into the posted
 * receive's room. Whatever frame that turns out to be, what the caller sees must be as if the header had been
 * read alone: the exact payload of a DATA frame, the whole reason of an ABORT frame. And an ABORT that arrived
 * just before a reset is still what a failed write reports.
 */
class TcpLinkReceiveTest {

    private static final Signature EXPECTED = new Signature(1, 7, 0, -1, 3, 42);

    @Test
    void aSmallMessageArrivesWhole() throws IOException {
        byte[] payload = new byte[12];
        new Random().nextBytes(payload);
        ByteBuffer dst = ByteBuffer.allocateDirect(payload.length);
        receive(frame(Frame.DATA, payload, EXPECTED), dst);
        byte[] got = new byte[payload.length];
        dst.flip().get(got);
        assertArrayEquals(payload, got);
    }

    /** A long payload comes after padding (here not zeros, to show it is dropped, not copied). */
    @Test
    void aPaddedMessageArrivesWithoutItsPadding() throws IOException {
        Random random = new Random();
        byte[] payload = new byte[Frame.MIN_PADDED_PAYLOAD + 4 * 1009];
        random.nextBytes(payload);
        byte[] padding = new byte[1 + random.nextInt(Frame.MAX_PADDING)];
        random.nextBytes(padding);
        Signature signature = EXPECTED.withCount(payload.length / 4);
        ByteBuffer dst = ByteBuffer.allocateDirect(payload.length);
        receive(paddedFrame(payload, padding, signature), dst, signature);
        byte[] got = new byte[payload.length];
        dst.flip().get(got);
        assertArrayEquals(payload, got);
    }

    /** A short payload is read with its header in one go, so padding before it is a lie, refused before use. */
    @Test
    void paddingBeforeAShortPayloadIsRefused() {
        byte[] payload = new byte[12];
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> receive(paddedFrame(payload, new byte[8], EXPECTED), ByteBuffer.allocateDirect(12), EXPECTED));
        assertEquals(1, e.peer(), e.getMessage());
        assertTrue(e.getMessage().contains("8 bytes of padding"), e.getMessage());
    }

    @Test
    void paddingOfAPageOrMoreIsRefused() {
        byte[] payload = new byte[Frame.MIN_PADDED_PAYLOAD];
        Signature signature = EXPECTED.withCount(payload.length / 4);
        ByteBuffer frame = paddedFrame(payload, new byte[0], signature);
        frame.putInt(36, Frame.MAX_PADDING + 1); // the padding field, past what any sender writes
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> receive(frame, ByteBuffer.allocateDirect(payload.length), signature));
        assertTrue(e.getMessage().contains((Frame.MAX_PADDING + 1) + " bytes of padding"), e.getMessage());
    }

    /** The reason is longer than the room of the posted receive, which took its first bytes with the header. */
    @Test
    void anAbortReasonReadWithTheHeaderIsReportedWhole() throws IOException {
        String reason = "rank 1 ran out of memory in allReduce #42, and says so at length";
        ByteBuffer abort = frame(Frame.ABORT, reason.getBytes(StandardCharsets.UTF_8),
                new Signature(1, 7, 0, 1, 3, 42)); // ABORT's root field names the failed rank
        PeerFailureException e = assertThrows(PeerFailureException.class,
                () -> receive(abort, ByteBuffer.allocateDirect(8)));
        assertEquals(1, e.peer());
        assertTrue(e.getMessage().endsWith(reason), e.getMessage());
    }

    /** A reason shorter than what the posted receive could hold: nothing after it may be taken as reason. */
    @Test
    void aShortAbortReasonIsNotPaddedWithLaterBytes() throws IOException {
        ByteBuffer abort = frame(Frame.ABORT, "oom".getBytes(StandardCharsets.UTF_8), new Signature(1, 7, 0, 1, 3, 42));
        ByteBuffer stream = ByteBuffer.allocate(abort.remaining() + 16).put(abort).put(new byte[16]).flip();
        PeerFailureException e = assertThrows(PeerFailureException.class,
                () -> receive(stream, ByteBuffer.allocateDirect(64)));
        assertTrue(e.getMessage().endsWith(": oom"), e.getMessage());
    }

    /**
     * A peer that fails says why (ABORT) and leaves while this rank's data lies unread on its side: its kernel
     * resets the connection, and this rank's next write fails. The failure must still be the peer's account,
     * naming the rank the peer named, not "connection reset".
     */
    @Test
    void aResetAfterAnAbortStillReportsTheAbort() throws Exception {
        String reason = "rank 2 died in allReduce #42";
        ByteBuffer abort = frame(Frame.ABORT, reason.getBytes(StandardCharsets.UTF_8), new Signature(1, 7, 0, 2, 3, 42));
        try (ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel peer = SocketChannel.open(listener.getLocalAddress());
             SocketChannel mine = listener.accept()) {
            TcpLink link = new TcpLink(0, 3, new Connection[] {null, new Connection(1, mine), null}, 0, false);
            try {
                link.begin("allReduce", EXPECTED, System.nanoTime() + 5_000_000_000L);
                // more than both socket buffers hold: the peer never reads it
                PointToPoint.Transfer sending = link.send(1, ByteBuffer.allocateDirect(64 << 20));
                peer.write(abort);
                peer.setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
                peer.close(); // unread data: a reset
                PeerFailureException e = assertThrows(PeerFailureException.class, () -> link.await(sending));
                assertEquals(2, e.peer(), e.getMessage());
                assertTrue(e.getMessage().endsWith(reason), e.getMessage());
            } finally {
                link.abort(new IllegalStateException("test done"));
            }
        }
    }

    /** A whole frame of {@code kind} carrying {@code payload}, ready to send (also {@link TcpLinkCloseTest}'s). */
    static ByteBuffer frame(byte kind, byte[] payload, Signature signature) {
        ByteBuffer b = ByteBuffer.allocate(Frame.HEADER_BYTES + payload.length);
        Frame.encode(b, kind, payload.length, signature);
        b.limit(b.capacity()).position(Frame.HEADER_BYTES);
        return b.put(payload).flip();
    }

    private static ByteBuffer paddedFrame(byte[] payload, byte[] padding, Signature signature) {
        ByteBuffer b = ByteBuffer.allocate(Frame.HEADER_BYTES + padding.length + payload.length);
        Frame.encode(b, Frame.DATA, payload.length, signature);
        b.putInt(36, padding.length); // written raw: Frame.setPadding refuses what a test of the checks needs
        b.limit(b.capacity()).position(Frame.HEADER_BYTES);
        return b.put(padding).put(payload).flip();
    }

    private static void receive(ByteBuffer stream, ByteBuffer dst) throws IOException {
        receive(stream, dst, EXPECTED);
    }

    /** Sends {@code stream} from a peer socket, then receives one message of {@code dst}'s size as rank 0. */
    private static void receive(ByteBuffer stream, ByteBuffer dst, Signature expected) throws IOException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel peer = SocketChannel.open(listener.getLocalAddress());
             SocketChannel mine = listener.accept()) {
            peer.write(stream);
            TcpLink link = new TcpLink(0, 2, new Connection[] {null, new Connection(1, mine)}, 0, false);
            try {
                link.begin("allReduce", expected, System.nanoTime() + 5_000_000_000L);
                link.await(link.recv(1, dst));
            } finally {
                link.abort(new IllegalStateException("test done"));
            }
        }
    }
}
