package io.jcoll.trace;

import io.jcoll.internal.Json;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Merges the flight-recorder files of every rank ({@link TraceDump}) into one account: for each communicator, the
 * last call every rank completed, the first call some rank did not, and where each rank stands in it (completed,
 * running, waiting behind its earlier calls, never entered), ranks that disagree about a call, point-to-point
 * calls left pending, and ranks that wrote no file. What {@code jcoll trace DIR} prints.
 */
public final class TraceReport {

    /** Disagreements listed per communicator; more are counted. */
    private static final int MAX_DISAGREEMENTS = 5;

    /** One call as a rank's file has it. */
    record Call(long sequence, String op, String key, String call, String state, Long issuedMicros,
                Long startedMicros, Long endedMicros, int peer) {

        boolean completed() {
            return state.equals("completed");
        }
    }

    /** One communicator as one rank saw it. */
    record Ring(String name, int rank, int size, List<Integer> jobRanks, String transport, long capacity,
                long recorded, List<Call> calls) {
    }

    /** One rank's file. */
    record RankFile(Path file, int jobRank, String host, long writtenMicros, String reason, List<Ring> rings) {
    }

    private final List<RankFile> files = new ArrayList<>();
    private final List<String> passedOver = new ArrayList<>();

    private TraceReport() {
    }

    /**
     * Reads every {@code jcoll-trace-*.json} in {@code dir} (or the one file {@code dir} names). A file that cannot
     * be read, is not JSON, or has another schema is passed over and listed, never fatal.
     *
     * @throws IOException if the directory cannot be listed
     */
    public static TraceReport read(Path dir) throws IOException {
        TraceReport report = new TraceReport();
        List<Path> paths = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "jcoll-trace-*.json")) {
                ds.forEach(paths::add);
            }
        } else {
            paths.add(dir);
        }
        paths.sort(Comparator.naturalOrder());
        for (Path p : paths) {
            try {
                report.files.add(parse(p, Json.read(Files.readString(p, StandardCharsets.UTF_8))));
            } catch (IOException | RuntimeException e) {
                report.passedOver.add(p.getFileName() + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            }
        }
        return report;
    }

    private static RankFile parse(Path p, Object json) {
        Map<?, ?> doc = map(json, "the file");
        long schema = number(doc, "schema");
        if (schema != TraceDump.SCHEMA) {
            throw new IllegalArgumentException("schema " + schema + ", this jcoll reads schema " + TraceDump.SCHEMA
                    + " (written by another version: merge it with that version's jcoll trace)");
        }
        List<Ring> rings = new ArrayList<>();
        for (Object c : list(doc, "communicators")) {
            Map<?, ?> m = map(c, "a communicator");
            List<Call> calls = new ArrayList<>();
            for (Object e : list(m, "calls")) {
                Map<?, ?> call = map(e, "a call");
                String key = text(call, "op") + "|" + text(call, "type") + "|" + number(call, "count") + "|"
                        + call.get("reduce_op") + "|" + number(call, "root");
                calls.add(new Call(number(call, "sequence"), text(call, "op"), key, text(call, "call"),
                        text(call, "state"), optional(call, "issued_us"), optional(call, "started_us"),
                        optional(call, "ended_us"), (int) number(call, "peer")));
            }
            List<Integer> jobRanks = new ArrayList<>();
            for (Object r : list(m, "job_ranks")) {
                jobRanks.add((int) (long) (Long) requireType(r, Long.class, "job_ranks"));
            }
            int size = (int) number(m, "size");
            int rank = (int) number(m, "rank");
            if (rank < 0 || rank >= size || jobRanks.size() != size) {
                throw new IllegalArgumentException("communicator " + text(m, "name") + ": rank " + rank + " of " + size
                        + " with " + jobRanks.size() + " job ranks");
            }
            rings.add(new Ring(text(m, "name"), rank, size, jobRanks, text(m, "transport"),
                    number(m, "capacity"), number(m, "recorded"), calls));
        }
        return new RankFile(p, (int) number(doc, "rank"), doc.get("host") instanceof String h ? h : "",
                number(doc, "written_us"), doc.get("reason") instanceof String r ? r : "", rings);
    }

    /** The merged account, as text. */
    public String toText() {
        StringBuilder b = new StringBuilder();
        if (files.isEmpty()) {
            b.append("no flight-recorder file could be read (jcoll-trace-*.json, written by a failing rank in "
                    + "JCOLL_TRACE_DIR)\n");
        }
        for (String p : passedOver) {
            b.append("passed over ").append(p).append('\n');
        }
        for (RankFile f : files) {
            b.append(String.format(Locale.ROOT, "rank %d (%s%s): %s%n", f.jobRank(), f.file().getFileName(),
                    f.host().isEmpty() ? "" : ", host " + f.host(), f.reason()));
        }
        // each communicator, by name, as every rank saw it; a rank with two files for it (two failures, or an
        // earlier run in the same directory) counts with its newest
        Map<String, Map<Integer, RankFile>> byName = new TreeMap<>();
        for (RankFile f : files) {
            for (Ring ring : f.rings()) {
                byName.computeIfAbsent(ring.name(), k -> new TreeMap<>()).merge(ring.rank(), f,
                        (a, c) -> a.writtenMicros() >= c.writtenMicros() ? a : c);
            }
        }
        for (Map.Entry<String, Map<Integer, RankFile>> e : byName.entrySet()) {
            b.append('\n');
            communicator(b, e.getKey(), e.getValue());
        }
        return b.toString();
    }

    private static Ring ringOf(RankFile f, String name) {
        return f.rings().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    private void communicator(StringBuilder b, String name, Map<Integer, RankFile> byRank) {
        Map<Integer, Ring> rings = new TreeMap<>();
        byRank.forEach((r, f) -> rings.put(r, ringOf(f, name)));
        Ring any = rings.values().iterator().next();
        int size = any.size();
        b.append(String.format(Locale.ROOT, "communicator %s: %d %s, %s; files from %s%n", name, size,
                size == 1 ? "rank" : "ranks", any.transport(), ranks(rings.keySet(), any)));
        TreeSet<Integer> missing = new TreeSet<>();
        for (int r = 0; r < size; r++) {
            if (!rings.containsKey(r)) {
                missing.add(r);
            }
        }
        if (!missing.isEmpty()) {
            b.append("  no file from ").append(ranks(missing, any)).append(": it did not fail (still running, "
                    + "stopped, or blocked outside jcoll), or could not write to JCOLL_TRACE_DIR\n");
        }
        // the first collective some rank did not complete
        long frontier = rings.values().stream().mapToLong(TraceReport::lastCompleted).min().orElse(-1) + 1;
        long lastEveryone = frontier - 1;
        if (lastEveryone >= 0) {
            b.append("  last call every rank with a file completed: ").append(describe(rings, lastEveryone)).append('\n');
        } else {
            b.append("  no call was completed by every rank with a file\n");
        }
        boolean pending = false;
        for (Ring ring : rings.values()) {
            pending |= ring.calls().stream().anyMatch(c -> c.sequence() >= frontier);
        }
        if (pending) {
            b.append("  first call not completed everywhere: ").append(describe(rings, frontier)).append('\n');
            Map<String, List<Integer>> where = new LinkedHashMap<>();
            Map<Integer, String> lastCalls = new TreeMap<>();
            for (Map.Entry<Integer, Ring> r : rings.entrySet()) {
                Call c = find(r.getValue(), frontier);
                String standing;
                if (c == null) {
                    standing = "never entered it";
                    Call last = lastCollective(r.getValue());
                    lastCalls.put(r.getKey(), last == null ? "no call" : last.call() + " (" + last.state() + ")");
                } else if (c.completed()) {
                    standing = "completed it";
                } else if (c.state().equals("failed")) {
                    standing = "failed in it";
                } else if (c.state().equals("started")) {
                    long written = byRank.get(r.getKey()).writtenMicros();
                    standing = c.startedMicros() == null ? "running it" : String.format(Locale.ROOT,
                            "running it (for %.1f s when the file was written)",
                            (written - c.startedMicros()) / 1e6);
                } else {
                    standing = "issued it, waiting behind earlier calls";
                }
                where.computeIfAbsent(standing, k -> new ArrayList<>()).add(r.getKey());
            }
            for (Map.Entry<String, List<Integer>> w : where.entrySet()) {
                b.append("    ").append(ranks(w.getValue(), any)).append(": ").append(w.getKey()).append('\n');
            }
            lastCalls.forEach((r, last) -> b.append("      rank ").append(r).append("'s last call: ").append(last)
                    .append('\n'));
        } else if (lastEveryone >= 0) {
            b.append("  every rank with a file completed every collective it issued\n");
        }
        disagreements(b, rings, any);
        pointToPoint(b, rings);
        for (Ring ring : rings.values()) {
            if (ring.recorded() > ring.capacity()) {
                b.append(String.format(Locale.ROOT, "  rank %d kept its last %d of %d calls (JCOLL_TRACE_BUFFER)%n",
                        ring.rank(), ring.capacity(), ring.recorded()));
            }
        }
    }

    /** The highest sequence this rank completed, with every collective it kept up to there completed. */
    private static long lastCompleted(Ring ring) {
        long last = -1;
        for (Call c : ring.calls()) {
            if (c.sequence() < 0) {
                continue;
            }
            if (!c.completed()) {
                return last;
            }
            last = Math.max(last, c.sequence());
        }
        return last;
    }

    private static Call lastCollective(Ring ring) {
        Call last = null;
        for (Call c : ring.calls()) {
            if (c.sequence() >= 0) {
                last = c;
            }
        }
        return last;
    }

    private static Call find(Ring ring, long sequence) {
        for (Call c : ring.calls()) {
            if (c.sequence() == sequence) {
                return c;
            }
        }
        return null;
    }

    /** The call as the ranks that entered it describe it (the majority's words where they disagree). */
    private static String describe(Map<Integer, Ring> rings, long sequence) {
        Map<String, Integer> votes = new LinkedHashMap<>();
        for (Ring ring : rings.values()) {
            Call c = find(ring, sequence);
            if (c != null) {
                votes.merge(c.call(), 1, Integer::sum);
            }
        }
        return votes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElse("#" + sequence + " (no rank kept it)");
    }

    private static void disagreements(StringBuilder b, Map<Integer, Ring> rings, Ring any) {
        Map<Long, Map<String, List<Integer>>> bySequence = new TreeMap<>();
        Map<String, String> words = new LinkedHashMap<>();
        for (Map.Entry<Integer, Ring> r : rings.entrySet()) {
            for (Call c : r.getValue().calls()) {
                if (c.sequence() >= 0) {
                    bySequence.computeIfAbsent(c.sequence(), k -> new LinkedHashMap<>())
                            .computeIfAbsent(c.key(), k -> new ArrayList<>()).add(r.getKey());
                    words.put(c.sequence() + "/" + c.key(), c.call());
                }
            }
        }
        int found = 0;
        for (Map.Entry<Long, Map<String, List<Integer>>> s : bySequence.entrySet()) {
            if (s.getValue().size() < 2) {
                continue;
            }
            if (found++ < MAX_DISAGREEMENTS) {
                StringBuilder line = new StringBuilder();
                for (Map.Entry<String, List<Integer>> g : s.getValue().entrySet()) {
                    line.append(line.length() == 0 ? "" : "; ").append(ranks(g.getValue(), any))
                            .append(" called ")
                            .append(words.get(s.getKey() + "/" + g.getKey()));
                }
                b.append("  disagreement at collective #").append(s.getKey()).append(": ").append(line).append('\n');
            }
        }
        if (found > MAX_DISAGREEMENTS) {
            b.append("  ... and ").append(found - MAX_DISAGREEMENTS).append(" more collectives the ranks disagree "
                    + "about\n");
        }
        if (found == 0) {
            b.append("  no disagreement: every collective kept by two ranks or more has the same arguments on each\n");
        }
    }

    private static void pointToPoint(StringBuilder b, Map<Integer, Ring> rings) {
        for (Map.Entry<Integer, Ring> r : rings.entrySet()) {
            for (Call c : r.getValue().calls()) {
                if (c.sequence() < 0 && !c.completed() && !c.state().equals("failed")) {
                    b.append("  rank ").append(r.getKey()).append(" had ").append(c.op()).append(' ')
                            .append(c.op().equals("recv") ? "from" : "to").append(" rank ").append(c.peer())
                            .append(" pending (").append(c.state()).append("): ").append(c.call()).append('\n');
                }
            }
        }
    }

    /** {@code ranks [0, 2]} or {@code rank 1}, with job ranks where a split numbers them otherwise. */
    private static String ranks(java.util.Collection<Integer> ranks, Ring any) {
        List<Integer> list = new ArrayList<>(ranks);
        StringBuilder b = new StringBuilder(list.size() == 1 ? "rank " + list.get(0) : "ranks " + list);
        boolean renumbered = false;
        List<Integer> job = new ArrayList<>();
        for (int r : list) {
            job.add(any.jobRanks().get(r));
            renumbered |= any.jobRanks().get(r) != r;
        }
        if (renumbered) {
            b.append(list.size() == 1 ? " (job rank " + job.get(0) + ")" : " (job ranks " + job + ")");
        }
        return b.toString();
    }

    // ---- reading JSON fields, with the file's fault named

    private static Map<?, ?> map(Object v, String what) {
        return (Map<?, ?>) requireType(v, Map.class, what);
    }

    private static List<?> list(Map<?, ?> m, String key) {
        return (List<?>) requireType(m.get(key), List.class, key);
    }

    private static long number(Map<?, ?> m, String key) {
        return (Long) requireType(m.get(key), Long.class, key);
    }

    private static Long optional(Map<?, ?> m, String key) {
        Object v = m.get(key);
        return v == null ? null : (Long) requireType(v, Long.class, key);
    }

    private static String text(Map<?, ?> m, String key) {
        return (String) requireType(m.get(key), String.class, key);
    }

    private static Object requireType(Object v, Class<?> type, String what) {
        if (!type.isInstance(v)) {
            throw new IllegalArgumentException("not a jcoll trace file: " + what + " is "
                    + (v == null ? "missing" : "a " + v.getClass().getSimpleName()) + ", expected a "
                    + type.getSimpleName());
        }
        return v;
    }
}
