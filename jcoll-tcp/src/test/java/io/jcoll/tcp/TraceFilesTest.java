package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.testing.JsonReader;
import io.jcoll.testing.Ranks;
import io.jcoll.trace.TraceReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flight recorder on real ranks over TCP: a failing rank writes its communicators' last calls, and
 * {@code jcoll trace} merges the files into who stopped where, who never came, and who disagreed.
 */
class TraceFilesTest {

    private static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("jcoll-trace-rank")).sorted().toList();
        }
    }

    /**
     * Three ranks split into two groups, run a few calls, then rank 2 stops answering: ranks 0 and 1 time out in
     * allReduce #3 and write their files; rank 2 gives up later with abort() and writes its own. The merged
     * account names the call, who ran it and who never entered it, with both communicators.
     */
    @Test
    void aStalledRankIsFoundInTheMergedFiles(@TempDir Path dir) throws IOException {
        int n = 3;
        int port = TcpGroup.freePort();
        Map<String, String> settings = Map.of("JCOLL_TRACE_DIR", dir.toString());
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(n, Duration.ofSeconds(60), rank -> {
            Communicator c = TcpGroup.builder(rank, n, port, settings).timeout(Duration.ofSeconds(2)).build();
            float[] data = new float[1000];
            c.allReduce(HostBuffer.of(data), ReduceOp.SUM);                    // #0
            c.broadcast(HostBuffer.of(data), 0);                               // #1
            Communicator half = c.split(rank % 2, rank).orElseThrow();         // #2
            half.allReduce(HostBuffer.of(new double[17]), ReduceOp.MAX);       // the group's #1
            if (rank == 2) {
                Thread.sleep(4_000); // alive but silent while the others time out
                c.abort("rank 2 gave up");
                return null;
            }
            c.allReduce(HostBuffer.of(data, 0, 999), ReduceOp.SUM);            // #3: rank 2 never comes
            return null;
        });
        assertNotNull(outcomes.get(0).error(), "rank 0 times out");
        assertNotNull(outcomes.get(1).error(), "rank 1 times out or hears of rank 0's failure");
        List<Path> files = files(dir);
        assertEquals(3, files.size(), "one file per rank: " + files);

        // each file is JSON with both communicators
        Map<?, ?> doc = (Map<?, ?>) JsonReader.parse(Files.readString(files.get(0)));
        List<?> comms = (List<?>) doc.get("communicators");
        assertEquals(List.of("world", "world/split#2(color 0)"),
                comms.stream().map(m -> ((Map<?, ?>) m).get("name")).toList());
        List<?> calls = (List<?>) ((Map<?, ?>) comms.get(0)).get("calls");
        assertEquals(4, calls.size());
        Map<?, ?> last = (Map<?, ?>) calls.get(3);
        assertEquals("allReduce #3 (999 x float32, sum)", last.get("call"));
        assertEquals("recursive doubling", last.get("algorithm"));
        assertEquals("started", last.get("state"), "written as the failure was found");

        String report = TraceReport.read(dir).toText();
        assertTrue(report.contains("communicator world: 3 ranks, tcp; files from ranks [0, 1, 2]"), report);
        assertTrue(report.contains("last call every rank with a file completed: split #2"), report);
        assertTrue(report.contains("first call not completed everywhere: allReduce #3 (999 x float32, sum)"), report);
        assertTrue(report.contains("rank 2: never entered it"), report);
        assertTrue(report.contains("rank 2's last call: split #2"), report);
        assertTrue(report.contains("ranks [0, 1]: running it (for ") || report.contains("rank 0: running it (for "),
                report);
        assertTrue(report.contains("rank 2 (jcoll-trace-rank2-") && report.contains("rank 2 gave up"), report);
        assertTrue(report.contains("communicator world/split#2(color 0): 2 ranks, tcp; files from ranks [0, 1] "
                + "(job ranks [0, 2])"), report);
        assertTrue(report.contains("every rank with a file completed every collective it issued"), report);
    }

    /** Ranks that called one collective with different counts: the files show the disagreement, naming both. */
    @Test
    void aDisagreementIsNamed(@TempDir Path dir) throws IOException {
        int port = TcpGroup.freePort();
        Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            try (Communicator c = TcpGroup.join(rank, 2, port, Map.of("JCOLL_TRACE_DIR", dir.toString(),
                    "JCOLL_TIMEOUT", "3s"))) {
                float[] data = new float[100];
                c.allReduce(HostBuffer.of(data, 0, rank == 0 ? 100 : 50), ReduceOp.SUM);
                return null;
            }
        });
        String report = TraceReport.read(dir).toText();
        assertTrue(report.contains("disagreement at collective #0: rank 0 called allReduce #0 (100 x float32, sum); "
                + "rank 1 called allReduce #0 (50 x float32, sum)"), report);
    }

    /** A ring of 8 keeps the last 8 calls and says how many there were; 0 writes nothing. */
    @Test
    void theBufferSizeIsHonoured(@TempDir Path dir) throws IOException {
        for (String size : new String[] {"8", "0"}) {
            Path sub = Files.createDirectory(dir.resolve("buffer" + size));
            int port = TcpGroup.freePort();
            Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
                Communicator c = TcpGroup.join(rank, 2, port, Map.of("JCOLL_TRACE_DIR", sub.toString(),
                        "JCOLL_TRACE_BUFFER", size));
                for (int i = 0; i < 20; i++) {
                    c.barrier();
                }
                c.abort();
                return null;
            });
            // aborting a communicator that was closed, or had failed already, writes nothing more
            int port2 = TcpGroup.freePort();
            Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
                Communicator c = TcpGroup.join(rank, 2, port2, Map.of("JCOLL_TRACE_DIR", sub.toString(),
                        "JCOLL_TRACE_BUFFER", size));
                c.barrier();
                c.close();
                c.abort("after close");
                return null;
            });
            if (size.equals("0")) {
                assertEquals(List.of(), files(sub));
            } else {
                assertEquals(2, files(sub).size());
                String report = TraceReport.read(sub).toText();
                assertTrue(report.contains("rank 0 kept its last 8 of 20 calls"), report);
                assertTrue(report.contains("last call every rank with a file completed: barrier #19"), report);
            }
        }
    }

    /** Files that are not trace files, or of another schema, are passed over by name; the rest still merge. */
    @Test
    void badFilesArePassedOver(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("jcoll-trace-rank7-1.json"), "{\"schema\": 99, \"communicators\": []}");
        Files.writeString(dir.resolve("jcoll-trace-rank8-1.json"), "{\"schema\": 1, \"communi");
        Files.write(dir.resolve("jcoll-trace-rank9-1.json"), new byte[] {(byte) 0xff, 0, 1, 2});
        String report = TraceReport.read(dir).toText();
        assertTrue(report.contains("passed over jcoll-trace-rank7-1.json: schema 99, this jcoll reads schema 1"),
                report);
        assertTrue(report.contains("passed over jcoll-trace-rank8-1.json: not JSON as jcoll writes it"), report);
        assertTrue(report.contains("passed over jcoll-trace-rank9-1.json"), report);
        assertTrue(report.contains("no flight-recorder file could be read"), report);
    }
}
