package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.exceptions.TransportUnavailableException;
import io.jcoll.testing.Case;
import io.jcoll.testing.Ops;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Thread ranks told they are on different hosts ({@code JCOLL_HOST_ID}): where every host holds as many ranks,
 * two or more, {@code auto} takes the two tiers (shared memory within a host, TCP between hosts), and every
 * collective, AllReduce through the tiers included, matches the double-precision reference; where the hosts hold
 * different numbers of ranks, every rank falls back to TCP alike, saying why.
 */
class TieredTest {

    /** 0 and 1: fewer elements than a host's ranks, so TCP alone; 13, 97, 4099: a tail that does not shard. */
    private static final int[] COUNTS = {0, 1, 2, 13, 97, 1000, 4099};
    /** Small slots and pieces: 4099 float64 go in 33 pieces, each through slots in several chunks. */
    private static final Map<String, String> SMALL = Map.of("JCOLL_SHM_SLOT", "4K", "JCOLL_SHM_ONE_STEP", "256",
            "JCOLL_SHM_RING", "4K", "JCOLL_TCP_SEGMENT", "1K", "JCOLL_TIERS_PIECE", "1K");

    private static Map<String, String> onHost(String host, Map<String, String> more) {
        Map<String, String> s = new HashMap<>(more);
        s.put("JCOLL_HOST_ID", host);
        return s;
    }

    @Test
    void twoHostsOfTwoInterleavedRanksRunEveryCollectiveRightThroughTheTiers() {
        int n = 4;
        String[] hostOf = {"host-a", "host-b", "host-a", "host-b"}; // a scheduler dealing ranks round-robin
        List<Case> cases = Case.matrix(COUNTS, true, n, ThreadLocalRandom.current().nextLong(1, 1L << 40));
        int port = ShmGroup.freePort();
        List<List<double[]>> results = Ranks.all(n, Duration.ofMinutes(5), rank -> {
            try (Communicator comm = ShmGroup.builder(rank, n, port, "auto", onHost(hostOf[rank], SMALL)).build()) {
                assertEquals(TieredTransportProvider.NAME, comm.transport().name(), comm.transport().toString());
                assertTrue(comm.network().summary().startsWith("AllReduce, ReduceScatter and AllGather in two "
                        + "tiers: shared memory within each of the 2 hosts (2 ranks each), TCP between them"), comm.network().summary());
                return Case.runAll(comm, cases);
            }
        });
        Case.allReducesAgree(cases, results);
    }

    @Test
    void threeHostsOfTwoRanksAndSubCommunicatorsOverTcp() {
        int n = 6;
        List<Case> cases = Case.matrix(new int[] {6, 1001}, false, 3, ThreadLocalRandom.current().nextLong(1, 1L << 40));
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(5), rank -> {
            try (Communicator comm = ShmGroup.builder(rank, n, port, "auto", onHost("host-" + rank / 2, SMALL))
                    .build()) {
                assertEquals(TieredTransportProvider.NAME, comm.transport().name());
                // ranks {0, 2, 4}: one of each host; their sub-communicator runs over TCP
                try (Communicator column = comm.split(rank % 2, rank).orElseThrow()) {
                    assertTrue(column.network().summary().startsWith("TCP"), column.network().summary());
                    for (Case c : cases) {
                        c.run(Ops.of(column, false));
                    }
                }
                for (Case c : cases) {
                    c.run(Ops.of(comm, true));
                }
                return null;
            }
        });
    }

    @Test
    void hostsOfDifferentSizesFallBackToTcpTogetherOrFailWhenTheTiersWereAskedFor() {
        int n = 5;
        String[] hostOf = {"host-a", "host-a", "host-b", "host-b", "host-b"};
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.builder(rank, n, port, "auto", onHost(hostOf[rank], Map.of())).build()) {
                assertEquals("tcp", comm.transport().name());
                assertTrue(comm.transport().rejected().stream().anyMatch(r -> r.startsWith("shm+tcp passed over")
                        && r.contains("two tiers need several hosts with as many ranks each")),
                        comm.transport().toString());
                return null;
            }
        });
        int port2 = ShmGroup.freePort();
        for (Throwable t : Ranks.all(n, Duration.ofMinutes(2), rank -> assertThrows(
                TransportUnavailableException.class, () -> ShmGroup.builder(rank, n, port2, "shm+tcp",
                        onHost(hostOf[rank], Map.of())).build().close()))) {
            assertTrue(t.getMessage().contains("2 hosts with 2/3 ranks"), t.getMessage());
        }
    }

    /**
     * One rank sums where the others average: the tiers carry the call's own op, so the rank and its host's other
     * rank disagree in the host's tier and every rank fails (the others through the failed ranks' abort), none
     * returning a result that differs from the others'.
     */
    @ParameterizedTest
    @ValueSource(strings = {"allReduce", "reduceScatter"})
    void aRankThatSumsWhereTheOthersAverageFailsEveryRank(String op) {
        int n = 4;
        int port = ShmGroup.freePort();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.builder(rank, n, port, "auto",
                    onHost("host-" + rank / 2, Map.of("JCOLL_TIMEOUT", "20s"))).build()) {
                assertEquals(TieredTransportProvider.NAME, comm.transport().name());
                float[] data = new float[1000 * n];
                java.util.Arrays.fill(data, rank + 1);
                io.jcoll.ReduceOp redop = rank == 3 ? io.jcoll.ReduceOp.SUM : io.jcoll.ReduceOp.AVG;
                if (op.equals("allReduce")) {
                    comm.allReduce(io.jcoll.HostBuffer.of(data), redop);
                } else {
                    comm.reduceScatter(io.jcoll.HostBuffer.of(data), io.jcoll.HostBuffer.of(new float[1000]), 1000, redop);
                }
                comm.barrier(); // a rank the disagreement has not reached yet learns it here at the latest
                return null;
            }
        });
        for (Ranks.Outcome<Object> o : outcomes) {
            assertTrue(o.error() instanceof io.jcoll.exceptions.JcollException, "rank " + o.rank() + ": " + o.error());
        }
        String both = outcomes.get(2).error().getMessage() + " | " + outcomes.get(3).error().getMessage();
        assertTrue(both.contains("avg") && both.contains("sum"), both);
    }

    /**
     * Another thread of rank 3 aborts while every rank is deep in a ReduceScatter or AllGather of many pieces
     * (calls in flight on both tiers and on the across thread): every rank stops long before the timeout, naming
     * rank 3's abort (the end of a message passed on from rank to rank, in the communicator's numbering), and
     * closes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"reduceScatter", "allGather"})
    void anAbortMidPipelineStopsEveryRankNamingIt(String op) {
        int n = 4;
        int block = 1 << 20;
        int port = ShmGroup.freePort();
        long start = System.nanoTime();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(n, Duration.ofMinutes(1), rank -> {
            Map<String, String> settings = new HashMap<>(SMALL);
            settings.put("JCOLL_TIMEOUT", "20s");
            try (Communicator comm = ShmGroup.builder(rank, n, port, "auto", onHost("host-" + rank / 2, settings))
                    .build()) {
                assertEquals(TieredTransportProvider.NAME, comm.transport().name());
                if (rank == 3) {
                    java.util.concurrent.CompletableFuture.runAsync(() -> {
                        try {
                            Thread.sleep(300);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        comm.abort();
                    });
                }
                for (int call = 0; call < 100; call++) { // far longer than 300 ms on any machine
                    if (op.equals("reduceScatter")) {
                        comm.reduceScatter(io.jcoll.HostBuffer.of(new float[block * n]),
                                io.jcoll.HostBuffer.of(new float[block]), block, io.jcoll.ReduceOp.SUM);
                    } else {
                        comm.allGather(io.jcoll.HostBuffer.of(new float[block]),
                                io.jcoll.HostBuffer.of(new float[block * n]), block);
                    }
                }
                return null;
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        for (Ranks.Outcome<Object> o : outcomes) {
            assertTrue(o.error() instanceof io.jcoll.exceptions.JcollException, "rank " + o.rank() + ": " + o.error());
            assertTrue(o.error().getMessage().contains("comm.abort() was called on rank 3"),
                    "rank " + o.rank() + ": " + o.error().getMessage());
            // in the communicator's numbering, not a tier's; an abort passed across hosts is no protocol error
            assertEquals(o.rank(), ((io.jcoll.exceptions.JcollException) o.error()).rank(), o.error().getMessage());
            assertFalse(o.error() instanceof io.jcoll.exceptions.ProtocolException, o.error().getMessage());
        }
        assertTrue(seconds < 15, "stopped long before the 20 s timeout, took " + seconds + " s");
    }
}
