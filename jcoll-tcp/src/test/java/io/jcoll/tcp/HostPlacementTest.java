package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.testing.Case;
import io.jcoll.testing.Ops;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Thread ranks that say they are on two hosts, interleaved ({@code JCOLL_HOST_ID} A, B, A, B, as a launcher that
 * deals ranks round-robin places them): the TCP transport learns the placement from its ranks, rings follow host
 * order, AllReduce goes in two levels, {@code comm.network()} says so, and every collective still matches its
 * reference, over one channel and over two, on the communicator and on a sub-communicator.
 */
class HostPlacementTest {

    private static final int[] COUNTS = {0, 1, 2, 13, 97, 1000, 4099};

    private static Map<String, String> settings(int rank, String... more) {
        Map<String, String> s = new HashMap<>(Map.of("JCOLL_HOST_ID", rank % 2 == 0 ? "host-a" : "host-b",
                "JCOLL_TCP_SEGMENT", "1K", "JCOLL_TCP_SMALL_ALLREDUCE", "256", "JCOLL_TCP_SMALL_BROADCAST", "256",
                "JCOLL_TCP_SMALL_ALLGATHER", "256"));
        for (int i = 0; i < more.length; i += 2) {
            s.put(more[i], more[i + 1]);
        }
        return s;
    }

    @Test
    void interleavedHostsGoInHostOrderAndTwoLevels() {
        int n = 4;
        int port = TcpGroup.freePort();
        List<Case> cases = Case.matrix(COUNTS, true, n, new SplittableRandom().nextLong(1L << 40));
        List<String> summaries = Ranks.all(n, Duration.ofMinutes(3), rank -> {
            // two channels for every call of 4 KB or more: each part runs the two levels on its own connections
            try (Communicator comm = TcpGroup.join(rank, n, port, settings(rank, "JCOLL_TCP_CHANNELS", "2",
                    "JCOLL_TCP_CHANNEL_MIN", "4K"))) {
                cases.forEach(c -> c.run(Ops.of(comm, false)));
                assertEquals(rank / 2, comm.localRank(), "local ranks are counted per host");
                // columns of a 2 x 2 mesh: ranks {0, 2} and {1, 3}, each all on one host
                Communicator column = comm.split(rank % 2, rank).orElseThrow();
                Case.matrix(COUNTS, false, 2, 7).forEach(c -> c.run(Ops.of(column, false)));
                String columnSummary = column.network().summary();
                column.close();
                return comm.network().summary() + " | " + columnSummary;
            }
        });
        for (String s : summaries) {
            assertTrue(s.contains("2 hosts x 2 ranks: rings in host order [0, 2, 1, 3]"), s);
            assertTrue(s.contains("large AllReduce in two levels"), s);
            assertTrue(s.contains("| TCP") && s.contains("all 2 ranks on one host"), s);
        }
    }

    @Test
    void hierarchyCanBeTurnedOff() {
        int n = 4;
        int port = TcpGroup.freePort();
        List<Case> cases = Case.matrix(COUNTS, false, n, new SplittableRandom().nextLong(1L << 40));
        List<String> summaries = Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, settings(rank, "JCOLL_TCP_HIERARCHY", "0"))) {
                cases.forEach(c -> c.run(Ops.of(comm, false)));
                return comm.network().summary();
            }
        });
        for (String s : summaries) {
            assertTrue(s.contains("rings in host order [0, 2, 1, 3]"), s);
            assertTrue(s.contains("; AllReduce in one ring (JCOLL_TCP_HIERARCHY=0)"), s);
        }
    }
}
