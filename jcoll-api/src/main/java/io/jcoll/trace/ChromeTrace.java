package io.jcoll.trace;

import io.jcoll.internal.Json;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns JFR recordings of several ranks into one Chrome trace (the JSON that {@code chrome://tracing} and
 * Perfetto open), as Horovod's timeline shows a job: a process per rank, a track per communicator, a slice per
 * {@link CollectiveEvent} with its arguments. The ranks' recordings are lined up by their wall clocks.
 */
public final class ChromeTrace {

    private ChromeTrace() {
    }

    /**
     * @param recordings JFR files (any number of ranks each; a file with no jcoll event adds nothing)
     * @return the trace document, and how many collective events it holds
     * @throws IOException naming a recording that cannot be read
     */
    public static Result convert(List<Path> recordings) throws IOException {
        List<Object> events = new ArrayList<>();
        Map<Integer, Map<String, Integer>> tracks = new TreeMap<>(); // rank -> communicator -> track id
        int count = 0;
        for (Path file : recordings) {
            List<RecordedEvent> read;
            try {
                read = RecordingFile.readAllEvents(file);
            } catch (IOException | RuntimeException e) {
                throw new IOException(file + " is not a JFR recording jcoll trace can read: " + e.getMessage(), e);
            }
            for (RecordedEvent e : read) {
                if (!e.getEventType().getName().equals(CollectiveEvent.NAME)) {
                    continue;
                }
                int rank = e.getInt("rank");
                String communicator = e.getString("communicator");
                Map<String, Integer> ofRank = tracks.computeIfAbsent(rank, r -> new LinkedHashMap<>());
                int track = ofRank.computeIfAbsent(communicator, c -> ofRank.size());
                Map<String, Object> slice = new LinkedHashMap<>();
                slice.put("name", e.getString("operation"));
                slice.put("cat", e.getString("transport"));
                slice.put("ph", "X");
                slice.put("ts", micros(e.getStartTime()));
                slice.put("dur", Math.max(0, e.getDuration().toNanos() / 1_000));
                slice.put("pid", rank);
                slice.put("tid", track);
                Map<String, Object> args = new LinkedHashMap<>();
                args.put("call", e.getString("call"));
                args.put("bytes", e.getLong("bytes"));
                args.put("algorithm", e.getString("algorithm"));
                args.put("completed", e.getBoolean("completed"));
                slice.put("args", args);
                events.add(slice);
                count++;
            }
        }
        for (Map.Entry<Integer, Map<String, Integer>> rank : tracks.entrySet()) {
            events.add(metadata("process_name", rank.getKey(), 0, "rank " + rank.getKey()));
            events.add(metadata("process_sort_index", rank.getKey(), 0, rank.getKey()));
            for (Map.Entry<String, Integer> track : rank.getValue().entrySet()) {
                events.add(metadata("thread_name", rank.getKey(), track.getValue(), track.getKey()));
            }
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("traceEvents", events);
        doc.put("displayTimeUnit", "ms");
        return new Result(Json.write(doc), count, tracks.size());
    }

    /**
     * @param json   the Chrome trace
     * @param events collective events in it
     * @param ranks  ranks (processes) in it
     */
    public record Result(String json, int events, int ranks) {
    }

    private static Map<String, Object> metadata(String name, int pid, int tid, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("ph", "M");
        m.put("pid", pid);
        m.put("tid", tid);
        m.put("args", Map.of(name.equals("process_sort_index") ? "sort_index" : "name", value));
        return m;
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1_000;
    }
}
