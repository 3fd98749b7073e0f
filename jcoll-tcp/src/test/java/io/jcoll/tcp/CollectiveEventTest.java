package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.testing.JsonReader;
import io.jcoll.testing.Ranks;
import io.jcoll.trace.ChromeTrace;
import io.jcoll.trace.CollectiveEvent;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With the repository's JFC, a recording holds one event per call with its facts, on every rank; the recording
 * turns into a Chrome trace with a process per rank. Without a recording no event is made.
 */
class CollectiveEventTest {

    @Test
    void everyCallIsAnEventAndTheRecordingBecomesAChromeTrace(@TempDir Path dir) throws Exception {
        assertFalse(CollectiveEvent.enabled(), "no recording runs yet");
        Path jfc = Path.of("..", "tools", "jcoll.jfc"); // the repository's own settings file
        Path jfr = dir.resolve("ranks.jfr");
        int n = 2;
        int port = TcpGroup.freePort();
        try (Recording recording = new Recording(Configuration.create(jfc))) {
            recording.start();
            assertTrue(CollectiveEvent.enabled());
            Ranks.all(n, Duration.ofSeconds(60), rank -> {
                try (Communicator c = TcpGroup.join(rank, n, port, Map.of())) {
                    c.allReduce(HostBuffer.of(new float[2]), ReduceOp.SUM);              // #0: 8 bytes
                    c.allReduce(HostBuffer.of(new float[1 << 18]), ReduceOp.SUM);        // #1: 1 MB
                    c.allGather(HostBuffer.of(new int[6]), 3);                           // #2
                    c.broadcastAsync(HostBuffer.of(new double[5]), HostBuffer.of(new double[5]), 5, 1).await(); // #3
                    if (rank == 0) {
                        c.send(HostBuffer.of(new long[4]), 4, 1);
                    } else {
                        c.recv(HostBuffer.of(new long[4]), 4, 0);
                    }
                }
                return null;
            });
            recording.stop();
            recording.dump(jfr);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr).stream()
                .filter(e -> e.getEventType().getName().equals(CollectiveEvent.NAME)).toList();
        for (int rank = 0; rank < n; rank++) {
            int r = rank;
            List<RecordedEvent> mine = events.stream().filter(e -> e.getInt("rank") == r)
                    .sorted(java.util.Comparator.comparing(RecordedEvent::getStartTime)).toList();
            assertEquals(List.of("allReduce", "allReduce", "allGather", "broadcast", rank == 0 ? "send" : "recv"),
                    mine.stream().map(e -> e.getString("operation")).toList(), "rank " + rank);
            assertEquals(List.of(0L, 1L, 2L, 3L, -1L), mine.stream().map(e -> e.getLong("sequence")).toList());
            assertEquals(8, mine.get(0).getLong("bytes"));
            assertEquals(1 << 20, mine.get(1).getLong("bytes"));
            assertEquals("recursive doubling", mine.get(0).getString("algorithm"));
            assertTrue(mine.get(1).getString("algorithm").startsWith("ring"), mine.get(1).getString("algorithm"));
            assertEquals("allReduce #1 (262144 x float32, sum)", mine.get(1).getString("call"));
            assertTrue(mine.stream().allMatch(e -> e.getString("transport").equals("tcp")
                    && e.getString("communicator").equals("world") && e.getBoolean("completed")));
            assertTrue(mine.stream().allMatch(e -> !e.getDuration().isNegative()));
        }

        ChromeTrace.Result chrome = ChromeTrace.convert(List.of(jfr));
        assertEquals(10, chrome.events());
        assertEquals(2, chrome.ranks());
        Map<?, ?> doc = (Map<?, ?>) JsonReader.parse(chrome.json());
        List<?> traceEvents = (List<?>) doc.get("traceEvents");
        List<Map<?, ?>> slices = traceEvents.stream().<Map<?, ?>>map(e -> (Map<?, ?>) e).filter(e -> "X".equals(e.get("ph")))
                .toList();
        assertEquals(10, slices.size());
        assertEquals(5, slices.stream().filter(e -> ((Number) e.get("pid")).intValue() == 1).count());
        assertTrue(traceEvents.stream().map(e -> (Map<?, ?>) e).anyMatch(e -> "process_name".equals(e.get("name"))
                && "rank 1".equals(((Map<?, ?>) e.get("args")).get("name"))));

        Path out = dir.resolve("trace.json");
        assertEquals(0, io.jcoll.trace.TraceCommand.run("--chrome", out.toString(), jfr.toString()));
        assertEquals(chrome.json(), Files.readString(out));
    }
}
