package io.jcoll.bootstrap;

import org.junit.jupiter.api.Test;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rendezvous store over real sockets: operations, waiting, and strangers who must not get in or disturb it. */
class StoreTest {

    private static final byte[] TOKEN = "s3cret-job-token".getBytes(StandardCharsets.UTF_8);

    private static StoreClient client(StoreServer server, byte[] token) throws IOException {
        return StoreClient.connect(new InetSocketAddress("127.0.0.1", server.port()), token, 1, 2, Duration.ofSeconds(5));
    }

    @Test
    void setGetAddAndWait() throws Exception {
        try (StoreServer server = new StoreServer(new InetSocketAddress("127.0.0.1", 0), TOKEN);
             StoreClient a = client(server, TOKEN);
             StoreClient b = client(server, TOKEN)) {
            a.set("k", new byte[] {1, 2, 3});
            assertArrayEquals(new byte[] {1, 2, 3}, b.get("k", Duration.ZERO).orElseThrow());
            assertTrue(b.get("missing", Duration.ofMillis(100)).isEmpty());
            assertEquals(5, a.add("n", 5));
            assertEquals(3, b.add("n", -2));
            b.delete("k");
            assertTrue(a.get("k", Duration.ZERO).isEmpty(), "a deleted key is gone");
            Thread later = new Thread(() -> {
                sleep(200);
                server.local().set("late", new byte[] {9});
            });
            later.start();
            assertArrayEquals(new byte[] {9}, a.get("late", Duration.ofSeconds(5)).orElseThrow(), "a get waits for the key");
        }
    }

    @Test
    void aClientWithTheWrongTokenIsRefused() throws Exception {
        try (StoreServer server = new StoreServer(new InetSocketAddress("127.0.0.1", 0), TOKEN)) {
            IOException e = assertThrows(IOException.class, () -> client(server, "wrong".getBytes(StandardCharsets.UTF_8)));
            assertTrue(e.getMessage().contains("token"), e.getMessage());
        }
    }

    @Test
    void strangersAndGarbageDoNotDisturbTheJobAndAreLoggedOnce() throws Exception {
        Logger log = Logger.getLogger(StoreServer.class.getName());
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(r);
                }
            }
            @Override public void flush() { }
            @Override public void close() { }
        };
        log.addHandler(capture);
        try (StoreServer server = new StoreServer(new InetSocketAddress("127.0.0.1", 0), TOKEN);
             StoreClient rank = client(server, TOKEN)) {
            SplittableRandom rnd = new SplittableRandom(1);
            for (int k = 0; k < 20; k++) {
                try (Socket s = new Socket("127.0.0.1", server.port())) {
                    byte[] junk = new byte[rnd.nextInt(1, 300)];
                    rnd.nextBytes(junk);
                    s.getOutputStream().write(junk);
                    s.setSoTimeout(5000);
                    assertEquals(-1, drain(s.getInputStream()), "the server hangs up on garbage");
                } catch (IOException reset) {
                    // a reset is a refusal too
                }
                rank.set("key" + k, new byte[] {(byte) k});
                assertArrayEquals(new byte[] {(byte) k}, rank.get("key" + k, Duration.ZERO).orElseThrow());
            }
            // a valid preamble that claims a huge key: refused without allocating it
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeInt(Handshake.MAGIC);
                out.writeShort(Handshake.VERSION);
                out.writeByte(Handshake.PURPOSE_STORE);
                out.writeInt(0);
                out.writeInt(Integer.MAX_VALUE);
                out.write(new byte[16]);
                out.write(new byte[32]); // a wrong proof
                out.flush();
                s.setSoTimeout(5000);
                assertEquals(-1, drain(s.getInputStream()));
            }
            rank.set("after", new byte[] {1});
            assertTrue(rank.get("after", Duration.ZERO).isPresent(), "the job carries on");
            long until = System.nanoTime() + 5_000_000_000L;
            while (server.refusedConnections() < 21 && System.nanoTime() < until) {
                sleep(10);
            }
            assertEquals(21, server.refusedConnections(), "every stranger was refused");
            // other tests' servers log to the same logger, possibly late: count this server's warnings only
            List<String> mine = warnings.stream().map(LogRecord::getMessage)
                    .filter(m -> m.startsWith("store on port " + server.port() + ":")).toList();
            assertEquals(1, mine.size(), "21 refusals from one host make one warning: " + mine);
            assertTrue(mine.get(0).contains("refused a connection from /127.0.0.1"), mine.get(0));
        } finally {
            log.removeHandler(capture);
        }
    }

    private static int drain(InputStream in) throws IOException {
        byte[] buf = new byte[4096];
        int n;
        while ((n = in.read(buf)) >= 0) {
            if (n == 0) {
                break;
            }
        }
        return n;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
