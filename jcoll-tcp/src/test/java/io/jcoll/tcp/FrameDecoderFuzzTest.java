package io.jcoll.tcp;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Signature;
import io.jcoll.tcp.p2p.Frame;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Fuzzes the TCP transport's receive path as it runs: a real {@link TcpLink}
 * reads a fuzzed byte stream from a real loopback socket while it waits for
 * one message of a fuzzed signature and length. Whatever arrives (garbage,
 * truncated or lying headers, ABORT frames with any reason, valid frames) the
 * receive must complete with exactly the expected bytes or fail with a
 * {@link JcollException} that has a message: no other exception, no hang, no
 * allocation of a length a header claims. Short run in the suite, longer with
 * {@code tools/fuzz-long.sh}; see {@code StoreProtocolFuzzTest} for the modes.
 */
class FrameDecoderFuzzTest {

    private static ServerSocketChannel listener;

    @BeforeAll
    static void listen() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterAll
    static void stop() throws IOException {
        listener.close();
    }

    @FuzzTest(maxDuration = "10s")
    void receive(FuzzedDataProvider data) throws IOException {
        int expectedBytes = data.consumeInt(0, 4096);
        Signature expected = new Signature(data.consumeInt(0, 9), data.consumeInt(0, 12), data.consumeInt(-1, 6),
                data.consumeInt(-1, 3), data.consumeLong(0, 1 << 20), data.consumeLong(-1, 1000));
        // half the inputs open with a header the receiver expects, so that the fuzzer also explores what follows
        // one (payloads, later frames), not only the first header's checks
        boolean validOpening = data.consumeBoolean();
        byte kind = data.pickValue(new byte[] {Frame.DATA, Frame.ABORT, Frame.CLOSE});
        byte[] rest = data.consumeRemainingAsBytes();
        ByteBuffer stream = ByteBuffer.allocate(Frame.HEADER_BYTES + rest.length);
        if (validOpening) {
            Frame.encode(stream, kind, kind == Frame.DATA ? expectedBytes : rest.length, expected);
            stream.limit(stream.capacity()).position(Frame.HEADER_BYTES);
        }
        stream.put(rest).flip();
        try (SocketChannel peer = SocketChannel.open(listener.getLocalAddress());
             SocketChannel mine = listener.accept()) {
            peer.write(stream); // fits the loopback socket buffer: inputs are a few KB
            peer.shutdownOutput();
            TcpLink link = new TcpLink(0, 2, new Connection[] {null, new Connection(1, mine)}, 0, false);
            try {
                link.begin("allReduce", expected, System.nanoTime() + 5_000_000_000L);
                ByteBuffer dst = ByteBuffer.allocate(expectedBytes);
                link.await(link.recv(1, dst));
                if (dst.hasRemaining()) {
                    throw new AssertionError("a receive completed with " + dst.remaining() + " bytes missing");
                }
            } catch (JcollException refused) {
                if (refused.getMessage() == null || refused.getMessage().isBlank()) {
                    throw new AssertionError("a refusal without a message", refused);
                }
            } finally {
                link.abort(new IllegalStateException("fuzz input done"));
            }
        }
    }
}
