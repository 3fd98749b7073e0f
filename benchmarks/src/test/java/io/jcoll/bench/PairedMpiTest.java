package io.jcoll.bench;

import io.jcoll.testing.Commands;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The paired benchmark: its quantiles, its sizes, the options it refuses, its reference check, and a whole run of
 * every operation under mpirun whose outputs, jcoll's and Open MPI's, its check finds right.
 */
class PairedMpiTest {

    private final Random random = new Random();

    @Test
    void aQuantileLiesBetweenTheValuesAroundItsRank() {
        for (int trial = 0; trial < 200; trial++) {
            double[] sorted = random.doubles(1 + random.nextInt(30), -50, 50).sorted().toArray();
            assertEquals(sorted[0], PairedMpi.quantile(sorted, 0));
            assertEquals(sorted[sorted.length - 1], PairedMpi.quantile(sorted, 1));
            assertEquals(ResultRow.median(sorted), PairedMpi.quantile(sorted, 0.5), 1e-9);
            double q = random.nextDouble();
            double at = q * (sorted.length - 1);
            double value = PairedMpi.quantile(sorted, q);
            assertTrue(value >= sorted[(int) Math.floor(at)] && value <= sorted[(int) Math.ceil(at)],
                    q + " of " + Arrays.toString(sorted) + ": " + value);
        }
    }

    @Test
    void sizesWithBlocksRoundDownToWholeBlocksAsMpiBenchDoes() {
        assertEquals(33, PairedMpi.total(Collective.ALLREDUCE, 132, 3));
        assertEquals(33, PairedMpi.total(Collective.BROADCAST, 132, 3));
        assertEquals(33, PairedMpi.total(Collective.ALLGATHER, 132, 3));
        assertEquals(32, PairedMpi.total(Collective.ALLGATHER, 132, 4));
        assertEquals(30, PairedMpi.total(Collective.ALLTOALL, 127, 6));
        assertEquals(0, PairedMpi.total(Collective.REDUCESCATTER, 8, 3));
    }

    @Test
    void refusesWhatMpiBenchDoesNotTimeAndSizesThatCannotBe() {
        assertThrows(IllegalArgumentException.class, () -> PairedMpi.Options.parse(new String[] {"reduce"}));
        assertThrows(IllegalArgumentException.class, () -> PairedMpi.Options.parse(new String[] {}));
        assertThrows(IllegalArgumentException.class,
                () -> PairedMpi.Options.parse(new String[] {"allreduce", "-b", "1M", "-e", "1K"}));
        assertThrows(IllegalArgumentException.class, () -> PairedMpi.Options.parse(new String[] {"allreduce", "-k", "0"}));
        assertThrows(IllegalArgumentException.class, () -> PairedMpi.Options.parse(new String[] {"allreduce", "-B"}));
        assertThrows(IllegalArgumentException.class, () -> PairedMpi.Options.parse(new String[] {"allreduce", "-x", "1"}));
        PairedMpi.Options o = PairedMpi.Options.parse(new String[] {"allgather", "-b", "4K", "-e", "2M", "--in-place"});
        assertEquals(4096, o.min());
        assertEquals(2 << 20, o.max());
        assertTrue(o.inPlace());
        assertTrue(!o.sharedMemory() && PairedMpi.Options.parse(new String[] {"alltoall", "--shared-memory"}).sharedMemory());
    }

    /** An all-reduce's output, right and then with one element off, against the check's count of wrong elements. */
    @Test
    void theCheckCountsEveryElementOffTheReference() {
        int n = 3;
        int total = 1 + random.nextInt(500);
        ByteBuffer out = ByteBuffer.allocateDirect(total * 4).order(ByteOrder.nativeOrder());
        for (int i = 0; i < total; i++) {
            double sum = 0;
            for (int r = 0; r < n; r++) {
                sum += r + i % 7; // every rank's input as the benchmark fills it, summed apart from it
            }
            out.putFloat(i * 4, (float) sum);
        }
        assertEquals(0, PairedMpi.wrong(Collective.ALLREDUCE, out, total, 1, n));
        int off = random.nextInt(total);
        out.putFloat(off * 4, out.getFloat(off * 4) + 1);
        assertEquals(1, PairedMpi.wrong(Collective.ALLREDUCE, out, total, 1, n));
        assertTrue(PairedMpi.wrong(Collective.BROADCAST, out, total, 1, n) > 0, "a sum is not rank 0's input");
    }

    /**
     * Every operation over jcoll's TCP transport and Open MPI's TCP path, every block timed: out of place both outputs
     * checked, both systems' buffers from io.jcoll.SharedMemory; in place, both systems' calls in place (MPI_IN_PLACE
     * for Open MPI) and no check.
     */
    @ParameterizedTest(name = "in place: {0}")
    @ValueSource(booleans = {false, true})
    void pairsEveryOperationUnderMpirunAndFindsBothOutputsRight(boolean inPlace) throws Exception {
        Assumptions.assumeTrue(Commands.onPath("mpirun.openmpi") || Commands.onPath("mpirun"),
                "SKIPPED: mpirun is not installed (apt-get install openmpi-bin)");
        // Open MPI's by name where MPICH's is installed too and may own the plain name
        String mpirun = Commands.onPath("mpirun.openmpi") ? "mpirun.openmpi" : "mpirun";
        for (String op : List.of("allreduce", "reducescatter", "allgather", "alltoall", "broadcast")) {
            Path dir = Files.createTempDirectory("paired");
            Path csv = dir.resolve("blocks.csv");
            Path log = dir.resolve("log");
            List<String> cmd = new ArrayList<>(List.of(mpirun, "--allow-run-as-root", "--oversubscribe",
                    "--bind-to", "none", "--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca",
                    "btl_tcp_if_include", "lo", "-np", "3", Commands.java(), "-Xmx256m", "-cp",
                    System.getProperty("java.class.path"), PairedMpi.class.getName(), op, "-b", "8", "-e", "64K",
                    "-f", "91", "-w", "4", "-k", "3", "-B", "2", "--transport", "tcp", "--blocks-csv", csv.toString()));
            cmd.add(inPlace ? "--in-place" : "--shared-memory");
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("JCOLL_TIMEOUT", "30s");
            Process job = pb.start();
            assertTrue(job.waitFor(120, TimeUnit.SECONDS), op + ": the job did not end");
            String out = Files.readString(log);
            assertEquals(0, job.exitValue(), op + ": " + out);
            // sizes 8 and 728 bytes: 728 = 182 floats, not a multiple of 3 (whole blocks of 60 where there are blocks)
            List<String> rows = Files.readAllLines(csv);
            assertEquals("bytes,block,jcoll_us,mpi_us", rows.get(0));
            long expected = op.equals("allreduce") || op.equals("broadcast") ? 728 : 720;
            int sizes = op.equals("allreduce") || op.equals("broadcast") ? 2 : 1; // 8 bytes are 2 floats: no block of 3
            assertEquals(1 + 2 * sizes, rows.size(), op + ": " + rows);
            for (String row : rows.subList(1, rows.size())) {
                String[] f = row.split(",");
                assertTrue(Double.parseDouble(f[2]) > 0 && Double.parseDouble(f[3]) > 0, op + ": " + row);
            }
            assertTrue(rows.get(rows.size() - 1).startsWith(expected + ","), op + ": " + rows);
            long tableRows = out.lines().filter(l -> l.matches("\\s+\\d+\\s.*")).count();
            assertEquals(sizes, tableRows, op + ": " + out);
            String checked = inPlace ? " -       -" : " 0       0";
            assertTrue(out.lines().filter(l -> l.matches("\\s+\\d+\\s.*")).allMatch(l -> l.endsWith(checked)),
                    op + ": an output was wrong\n" + out);
            assertEquals(inPlace, out.contains("(in place)"), op + ": " + out);
            assertEquals(!inPlace, out.contains("(both systems': io.jcoll.SharedMemory)"), op + ": " + out);
        }
    }
}
