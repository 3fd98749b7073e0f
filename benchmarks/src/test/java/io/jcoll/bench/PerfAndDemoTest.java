package io.jcoll.bench;

import io.jcoll.Communicator;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo and the perf command on four ranks as threads: every result verified, output in the promised format. */
class PerfAndDemoTest {

    private static Communicator join(int rank, int n, int port) {
        return Jcoll.builder().rank(rank).size(n).master("127.0.0.1", port).token("t").transport("tcp")
                .timeout(Duration.ofSeconds(60)).build();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void demoVerifiesEveryCollective() throws IOException {
        int port = freePort();
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        List<Boolean> ok = Ranks.all(4, Duration.ofMinutes(2), rank -> {
            try (Communicator c = join(rank, 4, port)) {
                return Demo.run(c, rank == 0 ? new PrintStream(table, true) : null);
            }
        });
        assertEquals(List.of(true, true, true, true), ok);
        String text = table.toString(StandardCharsets.UTF_8);
        for (Collective op : Collective.values()) {
            assertTrue(text.contains(op.label()), text);
        }
        assertTrue(text.contains("transport: tcp"), text);
        assertTrue(text.contains("all results verified on every rank"), text);
        assertTrue(!text.contains("NO:"), text);
    }

    @Test
    void perfPrintsTheNcclTestsTableWithNoWrongValues() throws Exception {
        for (Collective op : Collective.values()) {
            for (String type : new String[] {"float", "bfloat16", "int8"}) {
                int port = freePort();
                Path csv = Files.createTempFile("perf", ".csv");
                PerfOptions o = PerfOptions.parse(List.of(op.label(), "-b", "0", "-e", "64K", "-f", "8", "-w", "1",
                        "-i", "2", "-d", type, "-o", op.reduces() ? "max" : "sum", "-r", "2", "--csv", csv.toString()));
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                List<Long> wrong = Ranks.all(3, Duration.ofMinutes(2), rank -> {
                    try (Communicator c = join(rank, 3, port)) {
                        return Perf.run(c, o, rank == 0 ? new PrintStream(out, true) : null);
                    }
                });
                assertEquals(List.of(0L, 0L, 0L), wrong, op + " " + type);
                String text = out.toString(StandardCharsets.UTF_8);
                assertTrue(text.contains("#       size         count      type   redop    root     time   algbw   busbw #wrong"), text);
                assertTrue(text.contains("# Out of bounds values : 0 OK"), text);
                assertTrue(text.contains("# Avg bus bandwidth    : "), text);
                List<String> rows = Files.readAllLines(csv);
                assertTrue(rows.size() >= 5, "a CSV row per size: " + rows);
                assertTrue(rows.get(1).startsWith("jcoll-tcp," + op.label() + ",3,"), rows.get(1));
            }
        }
    }

    /** Skewed blocks (some pairs half, some one and a half times the even size), checked element by element. */
    @Test
    void skewedAllToAllVHasNoWrongValues() throws Exception {
        int port = freePort();
        PerfOptions o = PerfOptions.parse(List.of("alltoallv", "-b", "0", "-e", "1M", "-f", "16", "-w", "1", "-i", "2",
                "--skew", "0.5"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Long> wrong = Ranks.all(4, Duration.ofMinutes(2), rank -> {
            try (Communicator c = join(rank, 4, port)) {
                return Perf.run(c, o, rank == 0 ? new PrintStream(out, true) : null);
            }
        });
        assertEquals(List.of(0L, 0L, 0L, 0L), wrong);
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("# alltoallv skew 0.50: blocks of 0.50 to 1.50 times the even size"), text);
        assertTrue(text.contains("has no in-place form"), text);
    }

    /**
     * --memory shared: buffers from io.jcoll.SharedMemory, over the shm transport (whose peers read them through
     * mappings where single copy runs: JDK 22+), every size and every value checked; the header says which memory.
     */
    @Test
    void sharedMemoryIsMeasuredOverTheShmTransport() throws Exception {
        for (String op : List.of("allreduce", "reducescatter", "allgather", "alltoall", "broadcast")) {
            int port = freePort();
            PerfOptions o = PerfOptions.parse(List.of(op, "-b", "4", "-e", "1M", "-f", "16", "-w", "1", "-i", "2",
                    "--memory", "shared"));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            List<Long> wrong = Ranks.all(2, Duration.ofMinutes(2), rank -> {
                try (Communicator c = Jcoll.builder().rank(rank).size(2).master("127.0.0.1", port).token("t")
                        .transport("shm").timeout(Duration.ofSeconds(60)).build()) {
                    return Perf.run(c, o, rank == 0 ? new PrintStream(out, true) : null);
                }
            });
            assertEquals(List.of(0L, 0L), wrong, op);
            String text = out.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("# memory: host, from io.jcoll.SharedMemory"), text);
        }
        assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("allreduce", "--memory", "pinned")));
    }

    /** --group-size: two groups of two ranks measured at once, each its own sub-communicator. */
    @Test
    void groupSizeRunsOnSubCommunicators() throws Exception {
        int port = freePort();
        PerfOptions o = PerfOptions.parse(List.of("allreduce", "-b", "8", "-e", "64K", "-f", "32", "-w", "1", "-i", "2",
                "--group-size", "2"));
        List<Long> wrong = Ranks.all(4, Duration.ofMinutes(2), rank -> {
            try (Communicator c = join(rank, 4, port)) {
                return Perf.runOnGroups(c, o);
            }
        });
        assertEquals(List.of(0L, 0L, 0L, 0L), wrong);
        assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("alltoallv", "--skew", "1")));
    }

    /** --in-place-first: each size timed in place first, then out of place; every value still checked. */
    @Test
    void inPlaceFirstStillChecksBothForms() throws Exception {
        assertEquals(false, PerfOptions.parse(List.of("allgather")).inPlaceFirst());
        int port = freePort();
        PerfOptions o = PerfOptions.parse(List.of("allgather", "-b", "12", "-e", "300K", "-f", "64", "-w", "1", "-i",
                "2", "--jit-warmup", "0", "--in-place-first", "1"));
        assertEquals(true, o.inPlaceFirst());
        List<Long> wrong = Ranks.all(3, Duration.ofMinutes(2), rank -> {
            try (Communicator c = join(rank, 3, port)) {
                return Perf.run(c, o, null);
            }
        });
        assertEquals(List.of(0L, 0L, 0L), wrong);
    }

    /** --jit-warmup: more untimed calls than the default, on the sweep's first size, then a correct sweep. */
    @Test
    void aLongerJitWarmUpRunsBeforeACorrectSweep() throws Exception {
        assertEquals(Perf.JIT_WARMUP_CALLS, PerfOptions.parse(List.of("allreduce")).jitWarmup());
        assertThrows(IllegalArgumentException.class, () -> PerfOptions.parse(List.of("allreduce", "--jit-warmup", "-1")));
        int port = freePort();
        PerfOptions o = PerfOptions.parse(List.of("reducescatter", "-b", "24", "-e", "200", "-f", "8", "-w", "1", "-i",
                "2", "--jit-warmup", String.valueOf(Perf.JIT_WARMUP_CALLS + 3_000)));
        assertEquals(Perf.JIT_WARMUP_CALLS + 3_000, o.jitWarmup());
        List<Long> wrong = Ranks.all(3, Duration.ofMinutes(2), rank -> {
            try (Communicator c = join(rank, 3, port)) {
                return Perf.run(c, o, null);
            }
        });
        assertEquals(List.of(0L, 0L, 0L), wrong);
    }

    @Test
    void optionsParseLikeNcclTests() {
        PerfOptions o = PerfOptions.parse(List.of("allgather", "-b", "8", "-e", "1M", "-f", "4", "-n", "4", "-d", "half",
                "-o", "avg"));
        assertEquals(Collective.ALLGATHER, o.op());
        assertEquals(1 << 20, o.maxBytes());
        assertEquals(4, o.ranks());
        assertEquals(ReduceOp.AVG, o.redop());
        // allgather sizes are multiples of ranks x element size
        o.sizes(4).forEach(s -> assertEquals(0, s % 8, "size " + s));
        assertEquals(List.of("allgather", "-b", "8"), PerfOptions.withoutRanks(List.of("allgather", "-n", "4", "-b", "8")));
    }
}
