package io.jcoll.launch;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LauncherTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int launch(int ranks, Duration grace, String... args) {
        return Launcher.launch(new Launcher.Plan(ranks, System.getProperty("java.class.path"), ExitWith.class.getName(),
                List.of(args), List.of("-Xmx64m"), grace), new PrintStream(out, true), new PrintStream(err, true));
    }

    @Test
    void everyRankRunsWithItsVariablesAndPrefixedOutput() {
        assertEquals(0, launch(3, Duration.ofSeconds(5), "-1", "0"));
        String text = out.toString(StandardCharsets.UTF_8);
        for (int r = 0; r < 3; r++) {
            assertTrue(text.contains("[" + r + "] hello from rank " + r + " of 3, token set"), text);
        }
    }

    /** A report's plan: rank 0's lines as it wrote them (parsed like nccl-tests' table), the others' prefixed. */
    @Test
    void rankZerosOutputCanGoOutBare() {
        assertEquals(0, Launcher.launch(new Launcher.Plan(3, System.getProperty("java.class.path"),
                ExitWith.class.getName(), List.of("-1", "0"), List.of("-Xmx64m"), Duration.ofSeconds(5))
                .withRankZeroBare(), new PrintStream(out, true), new PrintStream(err, true)));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.lines().anyMatch(l -> l.startsWith("hello from rank 0 of 3")), text);
        assertTrue(text.contains("[1] hello from rank 1 of 3") && text.contains("[2] hello from rank 2 of 3"), text);
        assertFalse(text.contains("[0] "), text);
    }

    /** Its launch, with the other nodes': {@link NodeRendezvousTest}. */
    @Test
    void aNodeOfSeveralIsReadFromItsOptions() {
        Launcher.Plan plan = Launcher.parse(List.of("--nnodes", "3", "--node-rank", "2", "--nproc-per-node", "2",
                "--master-addr", "10.0.0.1", "--master-port", "29400", ExitWith.class.getName(), "-1", "0"), Map.of());
        assertEquals(new Launcher.Nodes(3, 2, "10.0.0.1", 29400), plan.nodes());
        assertEquals(2, plan.ranks());
        assertEquals(List.of("-1", "0"), plan.args());
    }

    @Test
    void slurmFillsTheNodesAndMissingOptionsAreNamed() {
        Launcher.Plan plan = Launcher.parse(List.of("--nproc-per-node", "4", "--master-port", "29400", "Main"),
                Map.of("SLURM_NNODES", "2", "SLURM_NODEID", "1", "SLURM_LAUNCH_NODE_IPADDR", "10.1.1.7"));
        assertEquals(new Launcher.Nodes(2, 1, "10.1.1.7", 29400), plan.nodes());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Launcher.parse(List.of(
                "--nnodes", "2", "-n", "1", "Main"), Map.of()));
        assertTrue(e.getMessage().contains("needs --node-rank, --master-addr, --master-port on every node"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Launcher.parse(List.of("--nnodes", "2", "--node-rank",
                "2", "--master-addr", "h", "--master-port", "1", "-n", "1", "Main"), Map.of()));
        assertTrue(e.getMessage().contains("--node-rank 2 is not below --nnodes 2"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Launcher.parse(List.of("--nnodes", "x", "Main"),
                Map.of()));
        assertTrue(e.getMessage().contains("--nnodes x is not a number"), e.getMessage());
    }

    /**
     * A rank that loads a native library and logs, launched on the newest JDK here (JDK 25 where the development
     * machines and CI have it, whose JVM warns about restricted methods unless native access is declared, and
     * about {@code sun.misc.Unsafe.invokeCleaner}, with which the shared-memory transport unmaps): no such warning,
     * and the record on one line under the rank's prefix, not the JDK's date line and message line.
     */
    @Test
    void ranksDeclareNativeAccessAndLogOneLineARecord() throws Exception {
        Path jdk25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
        String java = Files.isExecutable(jdk25) ? jdk25.toString() : io.jcoll.testing.Commands.java();
        io.jcoll.testing.Commands.Result r = io.jcoll.testing.Commands.run(List.of(java, "-cp",
                System.getProperty("java.class.path"), Launcher.class.getName(), "-n", "1", "--",
                NativeAndLog.class.getName()), Map.of(), 60);
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("[0] WARNING: one record, one line"), r.output());
        assertFalse(r.output().contains("restricted method"), r.output());
        assertFalse(r.output().contains("sun.misc.Unsafe"), r.output());
        assertFalse(r.output().matches("(?s).*\\[0\\] \\w{3} \\d+, \\d{4} .*"), "a date line: " + r.output());
        if (!Files.isExecutable(jdk25)) {
            System.out.println("no JDK 25 at " + jdk25 + ": the native-access half was checked on " + java);
        }
    }

    @Test
    void theUnsafeOptionGoesOnlyToJvmsThatKnowIt() {
        assertFalse(Launcher.rankJvmOptions(17).stream().anyMatch(o -> o.startsWith("--sun-misc")));
        assertFalse(Launcher.rankJvmOptions(22).stream().anyMatch(o -> o.startsWith("--sun-misc")));
        assertTrue(Launcher.rankJvmOptions(23).contains("--sun-misc-unsafe-memory-access=allow"));
        assertTrue(Launcher.rankJvmOptions(25).contains("--sun-misc-unsafe-memory-access=allow"));
    }

    @Test
    void aFailingRankIsNamedAndItsCodeReturned() {
        assertEquals(3, launch(3, Duration.ofSeconds(5), "1", "3"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("rank 1 failed first (exit code 3)"), err.toString());
    }

    @Test
    void theOthersAreStoppedAfterTheGracePeriod() {
        long start = System.nanoTime();
        assertEquals(5, launch(3, Duration.ofMillis(500), "2", "5", "sleep"));
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertTrue(seconds < 20, "stopped the sleeping ranks promptly, took " + seconds + " s");
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("stopping rank(s) [0, 1]"), e);
        assertTrue(e.contains("rank 2 failed first"), e);
    }

    /** A stopped rank ignores SIGTERM: it is killed at once after the grace period, and the launcher exits then. */
    @Test
    void aStoppedRankIsKilledRightAfterTheGracePeriod() {
        long start = System.nanoTime();
        assertEquals(6, launch(3, Duration.ofSeconds(2), "2", "6", "stop"));
        double seconds = (System.nanoTime() - start) / 1e9;
        // rank 2 fails 1 s after starting (plus a JVM's start), the grace is 2 s, and then at most 1 s more
        assertTrue(seconds < 1 + 2 + 1 + 1.5, "exited within the grace period + 1 s (JVM starts aside), took "
                + seconds + " s");
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("stopping rank(s) [0, 1]"), err.toString());
    }

    @Test
    void badCommandLinesAreExplained() {
        assertEquals(2, Launcher.run(List.of("MainClass"), new PrintStream(out), new PrintStream(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("-n"), err.toString());
        assertEquals(2, Launcher.run(List.of("-n", "zero", "X"), new PrintStream(out), new PrintStream(err)));
        assertEquals(2, Launcher.run(List.of("-n", "2"), new PrintStream(out), new PrintStream(err)));
    }
}
