package io.jcoll.mpi;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import io.jcoll.testing.Commands;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real {@code mpirun} jobs of 4 Java processes ({@link MpiJobMain}), placed by
 * Open MPI alone: no MASTER_ADDR, MASTER_PORT or RANK. Skips, saying why, where
 * {@code mpirun} is not installed ({@code .ci/run} installs Debian's openmpi-bin).
 */
class MpirunJobTest {

    private static final int RANKS = 4;

    record Job(int exit, String output) {
    }

    @BeforeAll
    static void needsMpirun() {
        Assumptions.assumeTrue(Commands.onPath("mpirun"), "SKIPPED: mpirun is not installed (apt-get install openmpi-bin)");
    }


    static Job mpirun(Map<String, String> env, int timeoutSeconds, String... args) throws IOException, InterruptedException {
        return mpirun(System.getProperty("java.class.path"), env, timeoutSeconds, args);
    }

    static Job mpirun(String classpath, Map<String, String> env, int timeoutSeconds, String... args)
            throws IOException, InterruptedException {
        // Open MPI's own name for it, where MPICH is installed beside it and may own the plain name
        String mpirun = Commands.onPath("mpirun.openmpi") ? "mpirun.openmpi" : "mpirun";
        List<String> cmd = new ArrayList<>(List.of(mpirun, "--allow-run-as-root", "--oversubscribe", "-np",
                Integer.toString(RANKS), "--mca", "btl_vader_single_copy_mechanism", "none",
                Commands.java(), "-Xmx256m", "-XX:+UseSerialGC", "-cp", classpath, MpiJobMain.class.getName()));
        cmd.addAll(List.of(args));
        Commands.Result r = Commands.run(cmd, env, timeoutSeconds);
        return new Job(r.exit(), r.output());
    }

    /** Rank 1 expects 3 elements from rank 0 in an uneven all-to-all where rank 0 sends 5: all 4 ranks fail. */
    @Test
    void unevenCountsThatDisagreeAreReportedOnEveryRank() throws Exception {
        Job job = mpirun(Map.of("JCOLL_TRANSPORT", "mpi", "JCOLL_TIMEOUT", "20s"), 120, "mismatch=pairs");
        assertEquals(0, job.exit(), job.output());
        for (int r = 0; r < RANKS; r++) {
            assertTrue(job.output().contains("rank " + r + " raised: "), job.output());
        }
        assertTrue(job.output().contains("rank 0 sends this rank 5 elements but this rank expects 3 from it"),
                job.output());
        assertEquals(RANKS, job.output().split("a rank's sendCounts\\[r\\] must equal", -1).length - 1, job.output());
    }

    @ParameterizedTest(name = "JCOLL_TRANSPORT={0}")
    @ValueSource(strings = {"mpi", "tcp"})
    void everyCollectiveOnEveryRank(String transport) throws Exception {
        long firstId = ThreadLocalRandom.current().nextLong(1, 1L << 40);
        Job job = mpirun(Map.of("JCOLL_TRANSPORT", transport, "JCOLL_TEST_FIRST_ID", Long.toString(firstId),
                "JCOLL_TIMEOUT", "120s"), 400);
        assertEquals(0, job.exit(), job.output());
        for (int r = 0; r < RANKS; r++) {
            assertTrue(job.output().contains("rank " + r + " of " + RANKS + " over " + transport + ": "), job.output());
        }
        if (transport.equals("mpi")) {
            assertTrue(job.output().contains("refused as MPI lacks them"), job.output());
            assertTrue(!job.output().contains(" 0 cases right"), job.output());
        }
    }

    @Test
    void autoPicksMpiUnderMpirun() throws Exception {
        Job job = mpirun(Map.of("JCOLL_TRANSPORT", "auto", "JCOLL_TEST_FIRST_ID", "7"), 400);
        assertEquals(0, job.exit(), job.output());
        assertTrue(job.output().contains("over mpi: "), job.output());
    }

    @Test
    void aProgramThatInitialisedMpiItselfKeepsIt() throws Exception {
        Job job = mpirun(Map.of("JCOLL_TRANSPORT", "mpi"), 120, "user-init");
        assertEquals(0, job.exit(), job.output());
        for (int r = 0; r < RANKS; r++) {
            assertTrue(job.output().contains("rank " + r + ": jcoll reused the program's MPI and left it"), job.output());
        }
    }

    /** With Open MPI's Java bindings on the class path (a stand-in here), jcoll initialises MPI through them. */
    @Test
    void openMpisJavaBindingsAreUsedWhenPresent(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        Assumptions.assumeTrue(javac != null, "SKIPPED: no Java compiler in this runtime");
        int rc = javac.run(null, null, null, "-d", dir.toString(), "-cp", System.getProperty("java.class.path"),
                Path.of("src/test/mpijar-stub/mpi/MPI.java").toString());
        assertEquals(0, rc, "the stand-in for mpi.jar did not compile");
        Job job = mpirun(dir + java.io.File.pathSeparator + System.getProperty("java.class.path"),
                Map.of("JCOLL_TRANSPORT", "mpi", "JCOLL_TEST_FIRST_ID", "3"), 400);
        assertEquals(0, job.exit(), job.output());
        assertEquals(RANKS, job.output().split("mpi.jar stand-in: InitThread\\(3\\) -> 3", -1).length - 1, job.output());
        assertEquals(RANKS, job.output().split("mpi.jar stand-in: Finalize", -1).length - 1, job.output());
    }

    /** The same job under MPICH's launcher and library (MPICH's ABI), where Debian's mpich is installed. */
    @ParameterizedTest(name = "MPICH, JCOLL_TRANSPORT={0}")
    @ValueSource(strings = {"mpi", "tcp"})
    void underMpich(String transport) throws Exception {
        Assumptions.assumeTrue(Commands.onPath("mpiexec.mpich"), "SKIPPED: MPICH is not installed (apt-get install mpich)");
        Commands.Result job = Commands.run(List.of("mpiexec.mpich", "-n", "3", Commands.java(), "-Xmx256m",
                "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), MpiJobMain.class.getName()),
                Map.of("JCOLL_TRANSPORT", transport, "JCOLL_TEST_FIRST_ID",
                        Long.toString(ThreadLocalRandom.current().nextLong(1, 1L << 40))), 400);
        String out = job.output();
        assertEquals(0, job.exit(), out);
        for (int r = 0; r < 3; r++) {
            assertTrue(out.contains("rank " + r + " of 3 over " + transport + ": "), out);
        }
    }

    /** Random bad arguments through the MPI transport: each refused before MPI sees a pointer; MPI still right. */
    @Test
    void randomBadArgumentsNeverReachMpi() throws Exception {
        long seed = ThreadLocalRandom.current().nextLong();
        Job job = mpirun(Map.of("JCOLL_TRANSPORT", "mpi", "JCOLL_TIMEOUT", "60s"), 300, "abuse=" + seed);
        assertEquals(0, job.exit(), "seed " + seed + ": " + job.output());
        for (int r = 0; r < RANKS; r++) {
            assertTrue(job.output().contains("rank " + r + " over mpi refused {"), job.output());
        }
    }

    /** Every rank names who is doing what, from the signatures the ranks exchange before each collective. */
    @ParameterizedTest(name = "rank 1 differs in its {0}")
    @ValueSource(strings = {"operation", "count"})
    void mismatchedCollectivesAreReportedOnEveryRank(String kind) throws Exception {
        Job job = mpirun(Map.of("JCOLL_TRANSPORT", "mpi", "JCOLL_TIMEOUT", "20s"), 120, "mismatch=" + kind);
        assertEquals(0, job.exit(), job.output());
        String rankOne = kind.equals("operation") ? "rank 1 is in broadcast #1 (10 x float32, root 0)"
                : "rank 1 is in allReduce #1 (11 x float32, sum)";
        for (int r = 0; r < RANKS; r++) {
            assertTrue(job.output().contains("rank " + r + " raised: "), job.output());
        }
        assertEquals(RANKS, job.output().split(java.util.regex.Pattern.quote(
                "ranks [0, 2, 3] are in allReduce #1 (10 x float32, sum); " + rankOne), -1).length - 1, job.output());
    }

    @ParameterizedTest(name = "JCOLL_TRANSPORT={0}")
    @ValueSource(strings = {"mpi", "tcp"})
    void aRankThatExitsEarlyEndsTheJobWithAnError(String transport) throws Exception {
        long start = System.nanoTime();
        Job job = mpirun(Map.of("JCOLL_TRANSPORT", transport, "JCOLL_TIMEOUT", "20s"), 120, "die=2");
        double seconds = (System.nanoTime() - start) / 1e9;
        assertNotEquals(0, job.exit(), job.output());
        assertTrue(job.output().contains("rank 2 exits early on purpose"), job.output());
        assertTrue(!job.output().contains("WRONG"), job.output());
        assertTrue(seconds < 90, "the job took " + seconds + " s to end");
    }
}
