package io.jcoll.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The side-by-side table of {@code benchmarks/compare/compare.sh}: for each op, rank
 * count and size, every system's time and bus bandwidth, then jcoll's ratios, bus
 * bandwidth over the best peer's (higher is better) and time over each peer's (lower
 * is better). Reads the CSVs the systems wrote; optionally writes the merged table.
 *
 * <pre>java -cp ... io.jcoll.bench.Comparison [--csv MERGED.csv] RESULTS.csv...</pre>
 */
public final class Comparison {

    private static final String OURS = "jcoll-tcp";

    private Comparison() {
    }

    public static void main(String[] args) throws IOException {
        List<Path> files = new ArrayList<>();
        Path csv = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--csv") && i + 1 < args.length) {
                csv = Path.of(args[++i]);
            } else {
                files.add(Path.of(args[i]));
            }
        }
        if (files.isEmpty()) {
            System.err.println("usage: Comparison [--csv MERGED.csv] RESULTS.csv...");
            System.exit(2);
        }
        List<ResultRow> rows = ResultRow.readAll(files);
        print(rows, System.out);
        if (csv != null) {
            write(rows, csv);
        }
    }

    /** A key for one measurement point: op, ranks, bytes. */
    private record Point(String op, int ranks, long bytes) {
    }

    private static Map<Point, Map<String, ResultRow>> byPoint(List<ResultRow> rows) {
        Map<Point, Map<String, ResultRow>> points = new TreeMap<>(Comparator.comparing(Point::op)
                .thenComparingInt(Point::ranks).thenComparingLong(Point::bytes));
        for (ResultRow r : rows) {
            points.computeIfAbsent(new Point(r.op(), r.ranks(), r.bytes()), p -> new TreeMap<>()).put(r.system(), r);
        }
        return points;
    }

    private static List<String> peers(List<ResultRow> rows) {
        Set<String> systems = new LinkedHashSet<>();
        rows.stream().map(ResultRow::system).filter(s -> !s.equals(OURS)).sorted().forEach(systems::add);
        return new ArrayList<>(systems);
    }

    static void print(List<ResultRow> rows, PrintStream out) {
        List<String> peers = peers(rows);
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-14s %5s %11s  %22s", "op", "ranks",
                "bytes", OURS + " us | GB/s"));
        for (String p : peers) {
            head.append(String.format(Locale.ROOT, "  %22s", p + " us | GB/s"));
        }
        head.append("   busbw/best-peer");
        for (String p : peers) {
            head.append(String.format(Locale.ROOT, "  time/%s", p));
        }
        out.println(head);
        for (Map.Entry<Point, Map<String, ResultRow>> e : byPoint(rows).entrySet()) {
            Point p = e.getKey();
            Map<String, ResultRow> bySystem = e.getValue();
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-14s %5d %11d  %22s", p.op(),
                    p.ranks(), p.bytes(), cell(bySystem.get(OURS))));
            for (String peer : peers) {
                line.append("  ").append(String.format(Locale.ROOT, "%22s", cell(bySystem.get(peer))));
            }
            ResultRow ours = bySystem.get(OURS);
            Optional<ResultRow> best = peers.stream().map(bySystem::get).filter(r -> r != null)
                    .max(Comparator.comparingDouble(ResultRow::busbw));
            line.append(String.format(Locale.ROOT, "   %15s", ours != null && best.isPresent() && best.get().busbw() > 0
                    ? String.format(Locale.ROOT, "%.2fx", ours.busbw() / best.get().busbw()) : "-"));
            for (String peer : peers) {
                ResultRow r = bySystem.get(peer);
                line.append(String.format(Locale.ROOT, "  %" + (5 + peer.length()) + "s", ours != null && r != null
                        ? String.format(Locale.ROOT, "%.2fx", ours.timeUs() / r.timeUs()) : "-"));
            }
            out.println(line);
        }
    }

    private static String cell(ResultRow r) {
        return r == null ? "-" : String.format(Locale.ROOT, "%10.1f | %6.3f", r.timeUs(), r.busbw());
    }

    static void write(List<ResultRow> rows, Path csv) throws IOException {
        List<String> peers = peers(rows);
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(csv))) {
            StringBuilder head = new StringBuilder("op,ranks,bytes,jcoll_time_us,jcoll_busbw_gbs");
            for (String p : peers) {
                head.append(',').append(p).append("_time_us,").append(p).append("_busbw_gbs");
            }
            w.println(head);
            for (Map.Entry<Point, Map<String, ResultRow>> e : byPoint(rows).entrySet()) {
                Point p = e.getKey();
                StringBuilder line = new StringBuilder(p.op() + "," + p.ranks() + "," + p.bytes());
                for (String system : concat(OURS, peers)) {
                    ResultRow r = e.getValue().get(system);
                    line.append(r == null ? ",," : String.format(Locale.ROOT, ",%.3f,%.4f", r.timeUs(), r.busbw()));
                }
                w.println(line);
            }
        }
    }

    private static List<String> concat(String first, List<String> rest) {
        List<String> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all;
    }
}
