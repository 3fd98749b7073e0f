package io.jcoll.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One measured size from a results CSV: {@code jcoll perf --csv} writes them, and so do
 * the peers' benchmarks in {@code benchmarks/compare} (Open MPI's and Gloo's), with the
 * same first ten columns: system, op, ranks, type, redop, bytes, count, time_us,
 * algbw_gbs, busbw_gbs; jcoll's rows go on with its in-place figures (time_inplace_us,
 * algbw_inplace_gbs, busbw_inplace_gbs), of which the bus bandwidth is kept.
 *
 * @param system   who was measured, such as {@code jcoll-tcp}, {@code openmpi-tcp}, {@code gloo}
 * @param op       collective, as {@link Collective#label()}
 * @param ranks    rank count
 * @param bytes    size of the largest buffer (nccl-tests' convention)
 * @param timeUs   mean time per call on the slowest rank, microseconds
 * @param busbw    bus bandwidth, GB/s
 * @param busbwInPlace bus bandwidth of the same call in place, GB/s; NaN where the row has none (the peers')
 */
public record ResultRow(String system, String op, int ranks, long bytes, double timeUs, double busbw,
        double busbwInPlace) {

    /** A row without an in-place figure. */
    public ResultRow(String system, String op, int ranks, long bytes, double timeUs, double busbw) {
        this(system, op, ranks, bytes, timeUs, busbw, Double.NaN);
    }

    /**
     * @param file a CSV file; a header line (starting with {@code system,}) and blank lines are skipped
     * @return its rows
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException naming the file and line of a row that does not parse
     */
    public static List<ResultRow> read(Path file) throws IOException {
        List<ResultRow> rows = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty() || line.startsWith("system,") || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(",");
            try {
                rows.add(new ResultRow(f[0], f[1].toLowerCase(Locale.ROOT), Integer.parseInt(f[2]), Long.parseLong(f[5]),
                        Double.parseDouble(f[7]), Double.parseDouble(f[9]),
                        f.length > 13 ? Double.parseDouble(f[13]) : Double.NaN));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + " is not a results row: " + line, e);
            }
        }
        return rows;
    }

    /** @return the rows of every file, in order */
    public static List<ResultRow> readAll(List<Path> files) throws IOException {
        List<ResultRow> all = new ArrayList<>();
        for (Path f : files) {
            all.addAll(read(f));
        }
        return all;
    }

    /**
     * One system's rounds at one point (op, ranks, bytes) folded into one row: the median time and, each on its
     * own, the median bus bandwidth and the median in-place bus bandwidth.
     *
     * @return null for no rounds
     */
    public static ResultRow median(List<ResultRow> rounds) {
        if (rounds == null || rounds.isEmpty()) {
            return null;
        }
        ResultRow first = rounds.get(0);
        return new ResultRow(first.system(), first.op(), first.ranks(), first.bytes(),
                median(rounds.stream().mapToDouble(ResultRow::timeUs).toArray()),
                median(rounds.stream().mapToDouble(ResultRow::busbw).toArray()),
                median(rounds.stream().mapToDouble(ResultRow::busbwInPlace).toArray()));
    }

    /** The middle value, or the mean of the two middle ones (NaN sorts last, so all-NaN gives NaN). */
    static double median(double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }
}
