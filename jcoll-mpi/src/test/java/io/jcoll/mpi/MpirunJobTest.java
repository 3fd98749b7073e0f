package io.jcoll.mpi;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.CsvSource;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        return mpirun(System.getProperty("java.class.path"), MpiJobMain.class.getName(), env, timeoutSeconds, args);
    }

    static Job mpirun(String classpath, String mainClass, Map<String, String> env, int timeoutSeconds, String... args)
            throws IOException, InterruptedException {
        // Open MPI's own name for it, where MPICH is installed beside it and may own the plain name
        String mpirun = Commands.onPath("mpirun.openmpi") ? "mpirun.openmpi" : "mpirun";
        List<String> cmd = new ArrayList<>(List.of(mpirun, "--allow-run-as-root", "--oversubscribe", "-np",
                Integer.toString(RANKS), "--mca", "btl_vader_single_copy_mechanism", "none",
                Commands.java(), "-Xmx256m", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED", "-cp", classpath,
                mainClass));
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

    /**
     * A program written against Open MPI's real Java bindings ({@code mpi.jar}, built from Debian's openmpi
     * sources of the installed version by {@code tools/build-mpi-jar.sh}) that also forms a jcoll communicator:
     * whoever initialises MPI (the program with {@code MPI.InitThread} or {@code MPI.Init}, or jcoll through the
     * jar), the program's own {@code MPI.COMM_WORLD} calls and every jcoll collective are right, MPI is finalized
     * once, and on JDK 22+ no restricted-method warning is printed. Under plain {@code MPI.Init} (thread level
     * single) the mpi transport is refused, naming the level, {@code auto} passes it over for another, and tcp
     * still serves.
     */
    @ParameterizedTest(name = "{0} initialises MPI, JCOLL_TRANSPORT={1}")
    @CsvSource({"multiple, mpi", "multiple, tcp", "plain, tcp", "plain, mpi", "plain, auto", "jcoll, mpi"})
    void openMpisRealJavaBindings(String init, String transport, @TempDir Path dir) throws Exception {
        String classpath = compileAgainstMpiJar(dir);
        long firstId = ThreadLocalRandom.current().nextLong(1, 1L << 40);
        Job job = mpirun(classpath, "MpiJavaProgram", Map.of("JCOLL_TRANSPORT", transport, "JCOLL_TIMEOUT", "120s",
                "JCOLL_TEST_FIRST_ID", Long.toString(firstId)), 400, init);
        String out = job.output();
        assertEquals(0, job.exit(), out);
        for (int r = 0; r < RANKS; r++) {
            String expected = init.equals("plain") && transport.equals("mpi")
                    ? "rank " + r + " refused by jcoll: "
                    : "rank " + r + " of " + RANKS + " over " + (transport.equals("auto") ? "" : transport + ": ");
            assertTrue(out.contains(expected), expected + " is missing from:\n" + out);
        }
        assertEquals(RANKS, out.split("; MPI.COMM_WORLD right before, between and after", -1).length - 1, out);
        assertEquals(init.equals("jcoll") ? 0 : RANKS, out.split("rank finalized by the program", -1).length - 1, out);
        if (init.equals("plain") && transport.equals("mpi")) {
            assertTrue(out.contains("the program initialised MPI at thread level 0; jcoll's asynchronous calls need "
                    + "MPI_THREAD_SERIALIZED (2) or more"), out);
        }
        if (transport.equals("auto")) {
            assertFalse(out.contains(" over mpi: "), out);
        }
        assertFalse(out.contains("WARNING: A restricted method"), out);
        assertFalse(out.contains("exited without calling"), out); // Open MPI's word for a rank never finalized
    }

    /** The test program compiled against the real jar (built once per Open MPI version); the class path to run it. */
    private static String compileAgainstMpiJar(Path dir) throws Exception {
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        Assumptions.assumeTrue(javac != null, "SKIPPED: no Java compiler in this runtime");
        Commands.Result built = Commands.run(List.of("bash", Path.of("..", "tools", "build-mpi-jar.sh").toString()),
                Map.of(), 300);
        Assumptions.assumeTrue(built.exit() == 0,
                "SKIPPED: Open MPI's mpi.jar could not be built here (.ci/run builds it first): " + built.output());
        String lines = built.output().strip();
        String mpiJar = lines.substring(lines.lastIndexOf('\n') + 1);
        String classpath = mpiJar + java.io.File.pathSeparator + System.getProperty("java.class.path");
        int rc = javac.run(null, null, null, "-d", dir.toString(), "-cp", classpath,
                Path.of("src/test/mpi-java/MpiJavaProgram.java").toString());
        assertEquals(0, rc, "MpiJavaProgram did not compile against " + mpiJar);
        return dir + java.io.File.pathSeparator + classpath;
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
