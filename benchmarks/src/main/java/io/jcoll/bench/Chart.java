package io.jcoll.bench;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Draws bus bandwidth against message size, one line per system and rank count, from
 * results CSVs ({@code jcoll perf --csv}, the peers' in {@code benchmarks/compare}), as
 * a PNG: {@code ./jcoll chart --out FILE.png [--op OP] [--ranks N] [--title TEXT] RESULTS.csv...}.
 * With several ops in the files and no {@code --op}, one chart per op is written beside FILE,
 * named after it. {@code --ranks} keeps the rows of one rank count; {@code --title} says what
 * the chart shows (the machine, say) after the op.
 */
public final class Chart {

    private Chart() {
    }

    public static void main(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Path out = null;
        String only = null;
        int ranks = 0;
        String title = null;
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--op" -> only = Collective.parse(args[++i]).label();
                case "--ranks" -> ranks = Integer.parseInt(args[++i]);
                case "--title" -> title = args[++i];
                default -> files.add(Path.of(args[i]));
            }
        }
        if (out == null || files.isEmpty()) {
            System.err.println("usage: jcoll chart --out FILE.png [--op OP] [--ranks N] [--title TEXT] RESULTS.csv...");
            System.exit(2);
        }
        List<ResultRow> rows = ResultRow.readAll(files);
        String wanted = only;
        int wantedRanks = ranks;
        Map<String, List<ResultRow>> byOp = rows.stream().filter(r -> wanted == null || r.op().equals(wanted))
                .filter(r -> wantedRanks == 0 || r.ranks() == wantedRanks)
                .collect(Collectors.groupingBy(ResultRow::op, TreeMap::new, Collectors.toList()));
        if (byOp.isEmpty()) {
            System.err.println("jcoll chart: no rows" + (only == null ? "" : " for " + only)
                    + (ranks == 0 ? "" : " at " + ranks + " ranks") + " in " + files);
            System.exit(1);
        }
        for (Map.Entry<String, List<ResultRow>> e : byOp.entrySet()) {
            Path file = byOp.size() == 1 ? out : sibling(out, e.getKey());
            write(e.getKey() + (title == null ? "" : ", " + title), e.getValue(), file);
            System.out.println("wrote " + file);
        }
    }

    /** {@code results.png} and op {@code allreduce} give {@code results-allreduce.png}. */
    private static Path sibling(Path out, String op) {
        String name = out.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String stem = dot > 0 ? name.substring(0, dot) : name;
        return out.resolveSibling(stem + "-" + op + ".png");
    }

    static void write(String subject, List<ResultRow> rows, Path file) throws IOException {
        XYChart chart = new XYChartBuilder().width(1000).height(620).title(subject + ": bus bandwidth by message size")
                .xAxisTitle("message size (bytes, largest buffer)").yAxisTitle("bus bandwidth (GB/s)").build();
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNW);
        chart.getStyler().setMarkerSize(6);
        Map<String, List<ResultRow>> series = rows.stream().collect(Collectors.groupingBy(
                r -> r.system() + ", " + r.ranks() + " ranks", TreeMap::new, Collectors.toList()));
        for (Map.Entry<String, List<ResultRow>> s : series.entrySet()) {
            // a size measured in several rounds is drawn at its median
            List<ResultRow> points = s.getValue().stream().filter(r -> r.bytes() > 0)
                    .collect(Collectors.groupingBy(ResultRow::bytes, TreeMap::new, Collectors.toList()))
                    .values().stream().map(ResultRow::median).toList();
            if (points.isEmpty()) {
                continue;
            }
            XYSeries line = chart.addSeries(s.getKey(), points.stream().map(r -> (double) r.bytes()).toList(),
                    points.stream().map(ResultRow::busbw).toList());
            line.setMarker(SeriesMarkers.CIRCLE);
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
