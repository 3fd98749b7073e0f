package io.jcoll.internal;

import io.jcoll.exceptions.BootstrapException;
import io.jcoll.spi.RendezvousExchange;
import io.jcoll.spi.Settings;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rendezvous address handed over through a channel the caller holds ({@code Jcoll.Builder.rendezvous}, as
 * jcoll-spark does with a barrier stage's allGather): no MASTER_ADDR or MASTER_PORT, a fresh token, hostile
 * messages and a failing channel named.
 */
class GivenRendezvousTest {

    /** An in-memory channel among thread ranks: every rank gets rank 0's message. */
    private static final class SharedChannel implements RendezvousExchange {
        private final CompletableFuture<byte[]> fromRankZero = new CompletableFuture<>();
        private final int rank;
        private final SharedChannel shared; // rank 0's channel, which holds the message

        private SharedChannel(int rank, SharedChannel shared) {
            this.rank = rank;
            this.shared = shared == null ? this : shared;
        }

        @Override
        public byte[] broadcastFromRankZero(byte[] message) {
            if (rank == 0) {
                shared.fromRankZero.complete(message);
            }
            return shared.fromRankZero.orTimeout(30, TimeUnit.SECONDS).join();
        }

        @Override
        public void close() {
        }
    }

    private static Settings settings(int rank, int size) {
        Map<String, String> m = new HashMap<>();
        m.put("JCOLL_RANK", Integer.toString(rank));
        m.put("JCOLL_WORLD_SIZE", Integer.toString(size));
        // what the channel replaces: a stale pair in the environment must be ignored
        m.put("JCOLL_MASTER_ADDR", "192.0.2.1");
        m.put("JCOLL_MASTER_PORT", "9");
        m.put("JCOLL_TIMEOUT", "20s");
        return Settings.of(m);
    }

    @Test
    void everyRankReachesRankZerosStoreThroughTheChannelWithAFreshToken() throws Exception {
        int size = 3;
        SharedChannel zero = new SharedChannel(0, null);
        List<Bootstrap.Joined> joined = Ranks.all(size, Duration.ofSeconds(60), rank -> Bootstrap.join(settings(rank, size),
                new Bootstrap.GivenRendezvous("the test's channel", rank == 0 ? zero : new SharedChannel(rank, zero))));
        try {
            byte[] token = joined.get(0).cfg().token();
            assertTrue(token.length >= 32, "rank 0 made a fresh token: " + token.length + " bytes");
            for (Bootstrap.Joined j : joined) {
                assertArrayEquals(token, j.cfg().token());
                assertEquals("127.0.0.1", j.cfg().masterAddr(), "all ranks on one host: loopback");
                assertTrue(j.cfg().masterPort() > 0 && j.cfg().masterPort() != 9, "a free port: " + j.cfg().masterPort());
                assertEquals("the test's channel", j.cfg().launcher());
            }
            // one store: each rank counts itself into a key only the shared store holds
            for (Bootstrap.Joined j : joined) {
                j.store().add("arrived", 1);
            }
            assertEquals(size, joined.get(size - 1).store().add("arrived", 0));
            joined.get(0).store().set("from-zero", "hello".getBytes(StandardCharsets.UTF_8));
            assertEquals("hello", new String(joined.get(2).store().get("from-zero", Duration.ofSeconds(10)).orElseThrow(),
                    StandardCharsets.UTF_8));
        } finally {
            for (Bootstrap.Joined j : joined) {
                j.rendezvous().close();
            }
        }
    }

    @Test
    void aMessageJcollDidNotWriteIsNamedWithTheChannel() {
        for (String hostile : new String[] {"", "jcoll-rendezvous-1\nhost\nnot-a-port\ntoken",
                "jcoll-rendezvous-1\nhost\n70000\ntoken", "something else entirely\n\n\n", "jcoll-rendezvous-1\nonly-host"}) {
            RendezvousExchange garbage = new RendezvousExchange() {
                @Override public byte[] broadcastFromRankZero(byte[] message) { return hostile.getBytes(StandardCharsets.UTF_8); }
                @Override public void close() { }
            };
            BootstrapException e = assertThrows(BootstrapException.class, () -> Bootstrap.join(settings(1, 2),
                    new Bootstrap.GivenRendezvous("Spark barrier stage 7", garbage)));
            assertTrue(e.getMessage().contains("Spark barrier stage 7") && e.getMessage().contains("rank 0"),
                    hostile + " -> " + e.getMessage());
        }
    }

    @Test
    void aChannelThatFailsIsNamedOnEveryRank() {
        RendezvousExchange failing = new RendezvousExchange() {
            @Override public byte[] broadcastFromRankZero(byte[] message) {
                throw new IllegalStateException("another task of the stage failed");
            }
            @Override public void close() { }
        };
        for (int rank : new int[] {0, 1}) {
            BootstrapException e = assertThrows(BootstrapException.class, () -> Bootstrap.join(settings(rank, 2),
                    new Bootstrap.GivenRendezvous("Spark barrier stage 7", failing)));
            assertTrue(e.getMessage().contains("Spark barrier stage 7") && e.getMessage().contains("another task"),
                    e.getMessage());
            assertEquals(rank, e.rank());
        }
    }
}
