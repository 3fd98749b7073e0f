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
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * The side-by-side table of {@code benchmarks/compare/compare.sh}: for each op, rank
 * count and size, every system's time and bus bandwidth, then jcoll's ratios, bus
 * bandwidth over the best peer's (higher is better) and time over each peer's (lower
 * is better). Reads the CSVs the systems wrote; optionally writes the merged table.
 * <p>
 * A point measured in several rounds (compare.sh {@code -r}: the systems run one after
 * the other, then again, so that a slow minute on a shared host hits every system
 * alike) shows each system's median time and median bus bandwidth, and after the
 * ratio the range of the per-round ratios (round k of jcoll against round k of the
 * peers), so the spread is read off the table and not hidden by the median. (The ratio
 * itself is of the medians; with an even number of rounds it can fall outside that range.)
 * <p>
 * jcoll's ratio is of its out-of-place call, as Open MPI's is; Gloo's all-reduce works
 * only in place, so where jcoll's rows carry in-place figures a last column gives its
 * in-place bus bandwidth over the best peer's too.
 *
 * <pre>java -cp ... io.jcoll.bench.Comparison [--csv MERGED.csv] RESULTS.csv...</pre>
 */
public final class Comparison {

    /** The jcoll system the peers are compared with: the one transport of jcoll's rows (jcoll-tcp, jcoll-shm). */
    private static String ours(List<ResultRow> rows) {
        return rows.stream().map(ResultRow::system).filter(s -> s.startsWith("jcoll-")).findFirst().orElse("jcoll-tcp");
    }

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

    /** Every system's rows for each point, in the order read: one per round. */
    private static Map<Point, Map<String, List<ResultRow>>> byPoint(List<ResultRow> rows) {
        Map<Point, Map<String, List<ResultRow>>> points = new TreeMap<>(Comparator.comparing(Point::op)
                .thenComparingInt(Point::ranks).thenComparingLong(Point::bytes));
        for (ResultRow r : rows) {
            points.computeIfAbsent(new Point(r.op(), r.ranks(), r.bytes()), p -> new TreeMap<>())
                    .computeIfAbsent(r.system(), s -> new ArrayList<>()).add(r);
        }
        return points;
    }

    /**
     * The lowest and highest of one ratio of jcoll's to its peers' figures, round by round (round k of each);
     * null with fewer than two rounds that every system completed.
     *
     * @param ratio jcoll's row and the peers' rows of one round to the ratio, NaN where it has none
     */
    static double[] ratioRange(List<ResultRow> ours, List<List<ResultRow>> peers,
            BiFunction<ResultRow, List<ResultRow>, Double> ratio) {
        int rounds = ours == null ? 0 : ours.size();
        for (List<ResultRow> p : peers) {
            rounds = Math.min(rounds, p.size());
        }
        if (rounds < 2) {
            return null;
        }
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < rounds; k++) {
            int round = k;
            double r = ratio.apply(ours.get(k), peers.stream().map(p -> p.get(round)).toList());
            if (Double.isNaN(r)) {
                return null;
            }
            lo = Math.min(lo, r);
            hi = Math.max(hi, r);
        }
        return new double[] {lo, hi};
    }

    /** jcoll's bus bandwidth over the best peer's. */
    static double overBestPeer(ResultRow ours, List<ResultRow> peers) {
        return over(ours.busbw(), peers);
    }

    /** jcoll's in-place bus bandwidth over the best peer's. */
    static double inPlaceOverBestPeer(ResultRow ours, List<ResultRow> peers) {
        return over(ours.busbwInPlace(), peers);
    }

    /** A bus bandwidth over the best peer's; NaN where either is missing. */
    private static double over(double busbw, List<ResultRow> peers) {
        double best = peers.stream().mapToDouble(ResultRow::busbw).max().orElse(0);
        return best > 0 && !Double.isNaN(busbw) ? busbw / best : Double.NaN;
    }

    /** jcoll's time over the one peer given. */
    static double timeOver(ResultRow ours, List<ResultRow> peer) {
        return peer.get(0).timeUs() > 0 ? ours.timeUs() / peer.get(0).timeUs() : Double.NaN;
    }

    /**
     * One ratio's cell: its value at the medians, then its range over the rounds; "-" where it has no value.
     *
     * @param ours   jcoll's rounds at the point (null where it has none)
     * @param peers  the rounds of each peer the ratio takes
     */
    private static String ratioCell(List<ResultRow> ours, List<List<ResultRow>> peers,
            BiFunction<ResultRow, List<ResultRow>, Double> ratio) {
        ResultRow median = ResultRow.median(ours);
        double r = median == null || peers.isEmpty() ? Double.NaN
                : ratio.apply(median, peers.stream().map(ResultRow::median).toList());
        if (Double.isNaN(r)) {
            return "-";
        }
        double[] range = ratioRange(ours, peers, ratio);
        String cell = String.format(Locale.ROOT, "%.2fx", r);
        return range == null ? cell : cell + String.format(Locale.ROOT, " (%.2f-%.2f)", range[0], range[1]);
    }

    private static List<String> peers(List<ResultRow> rows) {
        String ours = ours(rows);
        Set<String> systems = new LinkedHashSet<>();
        rows.stream().map(ResultRow::system).filter(s -> !s.equals(ours)).sorted().forEach(systems::add);
        return new ArrayList<>(systems);
    }

    static void print(List<ResultRow> rows, PrintStream out) {
        String ours = ours(rows);
        List<String> peers = peers(rows);
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-14s %5s %11s  %22s", "op", "ranks",
                "bytes", ours + " us | GB/s"));
        for (String p : peers) {
            head.append(String.format(Locale.ROOT, "  %22s", p + " us | GB/s"));
        }
        head.append("   busbw/best-peer");
        for (String p : peers) {
            head.append(String.format(Locale.ROOT, "  time/%s", p));
        }
        boolean inPlace = rows.stream().anyMatch(r -> r.system().equals(ours) && !Double.isNaN(r.busbwInPlace()));
        if (inPlace) {
            head.append("   in-place busbw/best-peer");
        }
        out.println(head);
        for (Map.Entry<Point, Map<String, List<ResultRow>>> e : byPoint(rows).entrySet()) {
            Point p = e.getKey();
            Map<String, List<ResultRow>> bySystem = e.getValue();
            List<ResultRow> ourRounds = bySystem.get(ours);
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-14s %5d %11d  %22s", p.op(),
                    p.ranks(), p.bytes(), cell(ResultRow.median(ourRounds))));
            for (String peer : peers) {
                ResultRow median = ResultRow.median(bySystem.get(peer));
                line.append("  ").append(String.format(Locale.ROOT, "%22s", cell(median)));
            }
            List<List<ResultRow>> peerRounds = peers.stream().map(bySystem::get).filter(r -> r != null).toList();
            line.append(String.format(Locale.ROOT, "   %15s",
                    ratioCell(ourRounds, peerRounds, Comparison::overBestPeer)));
            for (String peer : peers) {
                List<ResultRow> rounds = bySystem.get(peer);
                line.append(String.format(Locale.ROOT, "  %" + (5 + peer.length()) + "s",
                        rounds == null ? "-" : ratioCell(ourRounds, List.of(rounds), Comparison::timeOver)));
            }
            if (inPlace) {
                line.append(String.format(Locale.ROOT, "   %24s",
                        ratioCell(ourRounds, peerRounds, Comparison::inPlaceOverBestPeer)));
            }
            out.println(line);
        }
    }

    private static String cell(ResultRow r) {
        return r == null ? "-" : String.format(Locale.ROOT, "%10.1f | %6.3f", r.timeUs(), r.busbw());
    }

    static void write(List<ResultRow> rows, Path csv) throws IOException {
        String ours = ours(rows);
        List<String> peers = peers(rows);
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(csv))) {
            StringBuilder head = new StringBuilder("op,ranks,bytes,jcoll_time_us,jcoll_busbw_gbs");
            for (String p : peers) {
                head.append(',').append(p).append("_time_us,").append(p).append("_busbw_gbs");
            }
            w.println(head);
            for (Map.Entry<Point, Map<String, List<ResultRow>>> e : byPoint(rows).entrySet()) {
                Point p = e.getKey();
                StringBuilder line = new StringBuilder(p.op() + "," + p.ranks() + "," + p.bytes());
                for (String system : concat(ours, peers)) {
                    ResultRow r = ResultRow.median(e.getValue().get(system));
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
