package io.jcoll.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The comparison table folds rounds into medians and shows the spread of the per-round ratios. */
class ComparisonTest {

    private final Random random = new Random();

    private static ResultRow row(String system, double timeUs, double busbw) {
        return new ResultRow(system, "allreduce", 8, 1 << 24, timeUs, busbw);
    }

    /** The median by its definition: as many values below it as above it (distinct values, odd count). */
    private static double byCounting(double[] values) {
        for (double candidate : values) {
            int below = 0;
            int above = 0;
            for (double v : values) {
                below += v < candidate ? 1 : 0;
                above += v > candidate ? 1 : 0;
            }
            if (below == above) {
                return candidate;
            }
        }
        throw new AssertionError("no median");
    }

    @Test
    void aMedianHasAsManyValuesBelowAsAbove() {
        for (int trial = 0; trial < 200; trial++) {
            int n = 1 + 2 * random.nextInt(6);
            double[] values = random.doubles(n, 0, 100).toArray();
            assertEquals(byCounting(values), ResultRow.median(values));
        }
    }

    @Test
    void anEvenCountTakesTheMeanOfTheMiddleTwo() {
        assertEquals(2.5, ResultRow.median(new double[] {4, 1, 3, 2}));
        assertEquals(7.0, ResultRow.median(new double[] {7, 7}));
    }

    @Test
    void roundsFoldIntoTheMedianTimeAndTheMedianBandwidthEachOnItsOwn() {
        List<ResultRow> rounds = List.of(row("jcoll-tcp", 10, 3), row("jcoll-tcp", 30, 1), row("jcoll-tcp", 20, 5));
        ResultRow m = ResultRow.median(rounds);
        assertEquals(20, m.timeUs());
        assertEquals(3, m.busbw());
        assertNull(ResultRow.median(List.of()));
    }

    @Test
    void theRatioRangeComparesRoundKWithRoundK() {
        int rounds = 5;
        List<ResultRow> ours = new ArrayList<>();
        List<ResultRow> mpi = new ArrayList<>();
        List<ResultRow> gloo = new ArrayList<>();
        double[] busLo = {Double.POSITIVE_INFINITY};
        double[] busHi = {0};
        double[] timeLo = {Double.POSITIVE_INFINITY}; // over Open MPI's, first two rounds only
        double[] timeHi = {0};
        for (int k = 0; k < rounds; k++) {
            double a = 1 + random.nextDouble() * 4;
            double b = 0.5 + random.nextDouble() * 2;
            double c = 0.5 + random.nextDouble() * 2;
            double t = 1 + random.nextDouble() * 9;
            double u = 1 + random.nextDouble() * 9;
            ours.add(row("jcoll-tcp", t, a));
            mpi.add(row("openmpi-tcp", u, b));
            gloo.add(row("gloo", 1, c));
            widen(busLo, busHi, a / Math.max(b, c));
            if (k < 2) {
                widen(timeLo, timeHi, t / u);
            }
        }
        assertArrayEquals(new double[] {busLo[0], busHi[0]}, Comparison.ratioRange(ours, List.of(mpi, gloo),
                Comparison::overBestPeer), 1e-12);
        // a peer that finished fewer rounds limits the rounds compared
        assertArrayEquals(new double[] {timeLo[0], timeHi[0]}, Comparison.ratioRange(ours,
                List.of(mpi.subList(0, 2)), Comparison::timeOver), 1e-12);
        // one round has no range
        assertNull(Comparison.ratioRange(ours.subList(0, 1), List.of(mpi), Comparison::overBestPeer));
    }

    private static void widen(double[] lo, double[] hi, double value) {
        lo[0] = Math.min(lo[0], value);
        hi[0] = Math.max(hi[0], value);
    }

    @Test
    void theTableShowsMediansAndTheRangeFromCsvFilesOfSeveralRounds(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        String peerHeader = "system,op,ranks,type,redop,bytes,count,time_us,algbw_gbs,busbw_gbs,wrong\n";
        String oursHeader = "system,op,ranks,type,redop,bytes,count,time_us,algbw_gbs,busbw_gbs,wrong,"
                + "time_inplace_us,algbw_inplace_gbs,busbw_inplace_gbs,wrong_inplace\n";
        // three rounds each: jcoll 4, 6, 5 GB/s out of place (8, 3, 7 in place); Open MPI 2, 2, 4 GB/s:
        // ratios 2.0, 3.0, 1.25 (in place 4.0, 1.5, 1.75); medians 5, 7 and 2
        Path ours = Files.writeString(dir.resolve("jcoll.csv"), oursHeader
                + "jcoll-tcp,allreduce,8,float,sum,16777216,4194304,100.0,1,4.0,0,50.0,1,8.0,0\n"
                + "jcoll-tcp,allreduce,8,float,sum,16777216,4194304,80.0,1,6.0,0,130.0,1,3.0,0\n"
                + "jcoll-tcp,allreduce,8,float,sum,16777216,4194304,90.0,1,5.0,0,60.0,1,7.0,0\n");
        Path mpi = Files.writeString(dir.resolve("mpi.csv"), peerHeader
                + "openmpi-tcp,allreduce,8,float,sum,16777216,4194304,200.0,1,2.0,0\n"
                + "openmpi-tcp,allreduce,8,float,sum,16777216,4194304,200.0,1,2.0,0\n"
                + "openmpi-tcp,allreduce,8,float,sum,16777216,4194304,100.0,1,4.0,0\n");
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        Comparison.print(ResultRow.readAll(List.of(ours, mpi)), new PrintStream(text, true, StandardCharsets.UTF_8));
        String table = text.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("90.0 |  5.000"), table);
        assertTrue(table.contains("200.0 |  2.000"), table);
        assertTrue(table.contains("2.50x (1.25-3.00)"), table);
        assertTrue(table.contains("0.45x (0.40-0.90)"), table); // time over Open MPI's: 0.5, 0.4, 0.9
        assertTrue(table.contains("3.50x (1.50-4.00)"), table); // in place: median 7 over median 2
    }
}
