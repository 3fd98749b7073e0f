package io.jcoll.trace;

import io.jcoll.internal.Json;
import io.jcoll.spi.Signature;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes a process's flight recorders to one file when its communicator fails: every communicator of the tree
 * (the one formed at start and those split from it), each with its ranks as the job numbers them, so that
 * {@code jcoll trace} can line up the files of every rank. One JSON file per rank and failure,
 * {@code jcoll-trace-rank<R>-<pid>.json}, in {@code JCOLL_TRACE_DIR} (default: the working directory).
 */
public final class TraceDump {

    /** The file format's version: {@link TraceReport} refuses files of another. */
    public static final int SCHEMA = 1;

    private static final AtomicInteger WRITTEN = new AtomicInteger(); // files this process wrote

    private TraceDump() {
    }

    /**
     * One communicator's ring, with what names it across ranks.
     *
     * @param name      the same on every member: {@code world} for the communicator formed at start, and
     *                  {@code world/split#3(color 1)} for one split from it by its collective #3
     * @param rank      this process's rank in it
     * @param size      its ranks
     * @param jobRanks  its ranks as the job numbers them (rank i of this communicator is job rank jobRanks[i])
     * @param transport the transport's name
     * @param recorder  its calls
     */
    public record Ring(String name, int rank, int size, int[] jobRanks, String transport, FlightRecorder recorder) {
    }

    /**
     * Writes the rings; never throws (a rank that cannot write its file says so in the log, and its failure is
     * reported as it would have been).
     *
     * @param dir     where
     * @param jobRank this process's rank in the job
     * @param reason  the failure, as the exception says it
     * @param rings   the communicators; those with recording off are left out
     * @return the file written, or null
     */
    public static Path write(Path dir, int jobRank, String host, String reason, List<Ring> rings) {
        long nowNanos = System.nanoTime();
        Instant now = Instant.now();
        long nowMicros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
        List<Object> communicators = new ArrayList<>();
        for (Ring ring : rings) {
            if (ring.recorder().capacity() > 0) {
                communicators.add(communicator(ring, nowNanos, nowMicros));
            }
        }
        if (communicators.isEmpty()) {
            return null;
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("schema", SCHEMA);
        doc.put("rank", jobRank);
        doc.put("host", host);
        doc.put("pid", ProcessHandle.current().pid());
        doc.put("written_us", nowMicros);
        doc.put("reason", reason);
        doc.put("communicators", communicators);
        int n = WRITTEN.incrementAndGet();
        Path file = dir.resolve("jcoll-trace-rank" + jobRank + "-" + ProcessHandle.current().pid()
                + (n == 1 ? "" : "-" + n) + ".json");
        try {
            Files.createDirectories(dir);
            Files.writeString(file, Json.write(doc), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
            return file;
        } catch (IOException | RuntimeException e) {
            System.getLogger(TraceDump.class.getName()).log(System.Logger.Level.WARNING, "rank " + jobRank
                    + " could not write its flight recorder to " + file + " (JCOLL_TRACE_DIR): " + e);
            return null;
        }
    }

    private static Map<String, Object> communicator(Ring ring, long nowNanos, long nowMicros) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("name", ring.name());
        c.put("rank", ring.rank());
        c.put("size", ring.size());
        List<Object> ranks = new ArrayList<>();
        for (int r : ring.jobRanks()) {
            ranks.add(r);
        }
        c.put("job_ranks", ranks);
        c.put("transport", ring.transport());
        c.put("capacity", ring.recorder().capacity());
        c.put("recorded", ring.recorder().recorded());
        List<Object> calls = new ArrayList<>();
        for (FlightRecorder.Entry e : ring.recorder().entries()) {
            calls.add(entry(e, nowNanos, nowMicros));
        }
        c.put("calls", calls);
        return c;
    }

    private static Map<String, Object> entry(FlightRecorder.Entry e, long nowNanos, long nowMicros) {
        Signature s = e.signature();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", e.id());
        m.put("sequence", s.sequence());
        m.put("op", e.operation() == null ? "operation " + s.operation() : e.operation().label());
        m.put("type", FlightRecorder.typeName(s.type()));
        m.put("count", s.count());
        m.put("reduce_op", FlightRecorder.reduceOpName(s.reduceOp()));
        m.put("root", s.root());
        m.put("peer", e.peer());
        m.put("bytes", e.bytes());
        m.put("algorithm", e.algorithm());
        m.put("call", s.describe());
        m.put("state", e.state().label());
        // 0: not timed (a small call that ran as soon as it was issued, over a transport that times its own waits)
        m.put("issued_us", e.issuedNanos() == 0 ? null : micros(e.issuedNanos(), nowNanos, nowMicros));
        m.put("started_us", e.startedNanos() == 0 ? null : micros(e.startedNanos(), nowNanos, nowMicros));
        m.put("ended_us", e.endedNanos() == 0 ? null : micros(e.endedNanos(), nowNanos, nowMicros));
        return m;
    }

    /** A {@link System#nanoTime} reading as microseconds since the epoch, by this host's clock. */
    private static long micros(long nanos, long nowNanos, long nowMicros) {
        return nowMicros - (nowNanos - nanos) / 1_000;
    }
}
