package io.jcoll.bootstrap;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * Fuzzes what the rendezvous store reads from the network. Each input is a
 * byte stream from a client; whatever it holds, the server side must end in
 * an {@link IOException} (the connection is dropped) or a well-formed reply:
 * never another exception, never an allocation of a size the input claims,
 * never a wait. In the normal suite each target fuzzes for a short while in
 * its own JVM ({@code JAZZER_FUZZ=1}, see this module's pom); without that
 * variable the saved inputs below {@code src/test/resources} replay as
 * regression tests. {@code tools/fuzz-long.sh} runs them for longer.
 */
class StoreProtocolFuzzTest {

    private static final byte[] TOKEN = "fuzzing-token".getBytes(StandardCharsets.UTF_8);

    /** A stranger's opening bytes: the server's side of the handshake must refuse them. */
    @FuzzTest(maxDuration = "10s")
    void handshake(byte[] input) {
        try {
            Handshake.accept(new DataInputStream(new ByteArrayInputStream(input)),
                    new DataOutputStream(new ByteArrayOutputStream()), TOKEN, Handshake.PURPOSE_STORE, 0);
        } catch (IOException refused) {
            return;
        }
        throw new AssertionError("a client that cannot know the token was accepted");
    }

    /** An authenticated client's requests: each is answered or ends the connection with an IOException. */
    @FuzzTest(maxDuration = "10s")
    void requests(byte[] input) {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(input));
        DataOutputStream out = new DataOutputStream(new ByteArrayOutputStream());
        try (Store store = new NoWaitStore()) {
            int op;
            while ((op = in.read()) >= 0) {
                StoreProtocol.answer((byte) op, in, out, store);
            }
        } catch (IOException dropped) {
            // a malformed request ends the connection, as the server does
        }
    }

    /** The server's store, except that a GET for a missing key answers at once instead of waiting. */
    private static final class NoWaitStore implements Store {
        private final MemoryStore data = new MemoryStore();
        @Override public void set(String key, byte[] value) { data.set(key, value); }
        @Override public Optional<byte[]> get(String key, Duration timeout) { return data.get(key, Duration.ZERO); }
        @Override public long add(String key, long delta) { return data.add(key, delta); }
        @Override public void delete(String key) { data.delete(key); }
        @Override public void close() { data.close(); }
    }
}
