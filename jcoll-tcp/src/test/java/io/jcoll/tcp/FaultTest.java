package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.CommunicatorClosedException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ranks that never come, stall, disagree or hold the wrong token: every rank ends with the right exception, in time. */
class FaultTest {

    private static final Map<String, String> SHORT = Map.of("JCOLL_TIMEOUT", "3s");

    @Test
    void aRankThatNeverArrivesIsNamed() {
        int port = TcpGroup.freePort();
        long start = System.nanoTime();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            TcpGroup.builder(rank, 3, port, SHORT).timeout(Duration.ofSeconds(3)).build(); // rank 2 never starts
            return null;
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        for (Ranks.Outcome<Object> o : outcomes) {
            BootstrapException e = assertInstanceOf(BootstrapException.class, o.error());
            assertTrue(e.getMessage().contains("[2] never arrived"), e.getMessage());
            assertEquals(2, e.peer());
        }
        assertTrue(seconds < 3 + 2, "gave up within the timeout, took " + seconds + " s");
    }

    /** With one channel, and with the 4 MB AllReduce split over three, whose waits all run out at once. */
    @ParameterizedTest(name = "{0} channel(s)")
    @ValueSource(ints = {1, 3})
    void aStalledRankIsNamedByEveryOtherRank(int channels) {
        int n = 4;
        int port = TcpGroup.freePort();
        long start = System.nanoTime();
        List<Ranks.Outcome<Double>> outcomes = Ranks.outcomes(n, Duration.ofSeconds(60), rank -> {
            try (Communicator c = TcpGroup.builder(rank, n, port, Map.of("JCOLL_TCP_CHANNELS", Integer.toString(channels),
                    "JCOLL_TCP_CHANNEL_MIN", "1M")).timeout(Duration.ofSeconds(2)).build()) {
                float[] data = new float[1 << 20];
                if (rank == 3) {
                    Thread.sleep(5_000); // alive but silent
                }
                long t0 = System.nanoTime();
                try {
                    c.allReduce(HostBuffer.of(data), ReduceOp.SUM);
                } finally {
                    if (rank != 3) {
                        System.out.println("rank " + rank + " failed after " + (System.nanoTime() - t0) / 1e9 + " s");
                    }
                }
                return 0.0;
            }
        });
        for (Ranks.Outcome<Double> o : outcomes) {
            JcollException e = assertInstanceOf(JcollException.class, o.error(), "rank " + o.rank() + " must fail");
            if (o.rank() != 3) {
                assertEquals(3, e.peer(), "rank " + o.rank() + " names the silent rank: " + e.getMessage());
                assertTrue(e.getMessage().contains("rank 3"), e.getMessage());
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        assertTrue(seconds < 15, "no hang, took " + seconds + " s");
    }

    @Test
    void mismatchedCollectivesAreCaughtOnEveryRank() {
        int port = TcpGroup.freePort();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            try (Communicator c = TcpGroup.join(rank, 2, port, SHORT)) {
                float[] data = new float[100];
                if (rank == 0) {
                    c.allReduce(HostBuffer.of(data), ReduceOp.SUM);
                } else {
                    c.allReduce(HostBuffer.of(data, 0, 50), ReduceOp.SUM);
                }
                return null;
            }
        });
        for (Ranks.Outcome<Object> o : outcomes) {
            assertNotNull(o.error(), "rank " + o.rank() + " must fail");
            if (o.error() instanceof CollectiveMismatchException m) {
                assertTrue(m.getMessage().contains("allReduce #0 (100 x float32, sum)")
                        || m.getMessage().contains("allReduce #0 (50 x float32, sum)"), m.getMessage());
            }
        }
        assertTrue(outcomes.stream().anyMatch(o -> o.error() instanceof CollectiveMismatchException),
                "at least one rank sees the mismatch itself");
    }

    @Test
    void aFailureAbortsTheCommunicatorForLaterCalls() {
        int port = TcpGroup.freePort();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            try (Communicator c = TcpGroup.join(rank, 2, port, SHORT)) {
                try {
                    if (rank == 0) {
                        c.allReduce(HostBuffer.of(new float[8]), ReduceOp.SUM);
                    } else {
                        c.allGather(HostBuffer.of(new float[8]), HostBuffer.of(new float[16]), 8);
                    }
                } catch (JcollException expected) {
                    // the first failure
                }
                CommunicatorClosedException e = assertThrows(CommunicatorClosedException.class, c::barrier);
                assertTrue(e.getMessage().contains("aborted by an earlier failure"), e.getMessage());
                return null;
            }
        });
        outcomes.forEach(Ranks.Outcome::get);
    }

    @Test
    void aRankWithTheWrongTokenCannotJoin() {
        int port = TcpGroup.freePort();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            TcpGroup.builder(rank, 2, port, SHORT).timeout(Duration.ofSeconds(3))
                    .token(rank == 0 ? TcpGroup.TOKEN : "not-the-token").build().close();
            return null;
        });
        BootstrapException intruder = assertInstanceOf(BootstrapException.class, outcomes.get(1).error());
        assertTrue(intruder.getMessage().contains("token"), intruder.getMessage());
        assertInstanceOf(BootstrapException.class, outcomes.get(0).error(), "rank 0 gives up on the missing rank");
    }

    @Test
    void garbageAtTheStoreDoesNotDisturbAForming() throws Exception {
        int n = 3;
        int port = TcpGroup.freePort();
        Thread scanner = new Thread(() -> {
            for (int k = 0; k < 50; k++) {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    OutputStream out = s.getOutputStream();
                    out.write(("GET / HTTP/1.1\r\nHost: x\r\n\r\n" + k).getBytes());
                    out.flush();
                } catch (Exception ignored) {
                    // the store is not up yet, or hung up on us: both fine
                }
            }
        });
        scanner.start();
        Ranks.all(n, Duration.ofSeconds(60), rank -> {
            try (Communicator c = TcpGroup.join(rank, n, port, Map.of())) {
                int[] v = {rank};
                c.allReduce(HostBuffer.of(v), ReduceOp.SUM);
                assertEquals(3, v[0]);
            }
            return null;
        });
        scanner.join();
    }
}
