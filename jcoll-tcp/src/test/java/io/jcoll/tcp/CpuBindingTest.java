package io.jcoll.tcp;

import io.jcoll.testing.Commands;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 2-rank job started under {@code taskset -c 0}, as {@code mpirun}'s default binding leaves a JVM. By default
 * each rank widens every one of its threads (the JVM's, started before, and jcoll's) to its node's CPUs before the
 * transport starts, and says so; with {@code JCOLL_CPU_AFFINITY=keep} both run bound and say, in
 * {@code comm.transport()} and one loud log line each, that they are bound to one CPU, which the other rank is
 * bound to as well, and how to fix it.
 */
class CpuBindingTest {

    private String machineCpus;

    @BeforeEach
    void needsSeveralCpus() throws IOException {
        Assumptions.assumeTrue(Commands.onPath("taskset"), "SKIPPED: taskset is not installed (util-linux)");
        Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "SKIPPED: this process may use one CPU");
        // what a rank of CPU 0's node widens to: node 0's CPUs where the machine lists nodes, else the online CPUs
        Path node0 = Path.of("/sys/devices/system/node/node0/cpulist");
        machineCpus = Files.readString(Files.exists(node0) ? node0 : Path.of("/sys/devices/system/cpu/online")).trim();
        Assumptions.assumeFalse(machineCpus.equals("0"), "SKIPPED: CPU 0's node has no other CPU");
        Assumptions.assumeTrue(Files.readString(Path.of("/proc/self/status")).contains("Cpus_allowed_list:\t" + machineCpus),
                "SKIPPED: this process is itself bound to fewer CPUs than " + machineCpus);
    }

    private Commands.Result job(Map<String, String> env) throws Exception {
        return Commands.run(List.of("taskset", "-c", "0", Commands.java(), "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), "io.jcoll.launch.Launcher", "-n", "2", "--",
                "io.jcoll.tcp.it.TransportReportMain"), env, 120);
    }

    /**
     * A job's output, after checking that it exited 0 and that each rank's {@code comm.transport()} line matches
     * {@code account} (a pattern of what follows "transport: ") and its threads ended with the masks {@code masks}.
     */
    private static String everyRank(Commands.Result r, String account, String masks) {
        String out = r.output();
        assertEquals(0, r.exit(), out);
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(out.matches("(?s).*\\[" + rank + "\\] rank " + rank + " transport: " + account + ".*"), out);
            assertTrue(out.contains("[" + rank + "] rank " + rank + " thread masks: [" + masks + "]"), out);
        }
        return out;
    }

    @Test
    void aRankBoundToOneCpuWidensEveryThreadToItsNodeAndSaysSo() throws Exception {
        // the JVM's threads, started under the binding, and jcoll's, started after: every one widened
        String out = everyRank(job(Map.of("JCOLL_TRANSPORT", "tcp")), "tcp[^\\n]*WARNING: this process was bound to 1 CPU "
                + "\\(CPU 0\\) of the machine's \\d+ \\(under jcoll launch\\), where a JVM running collectives starves; "
                + "jcoll widened every thread of it to CPUs " + machineCpus + " \\((NUMA node 0, the node of the CPU it "
                + "had|every online CPU[^)]*)\\)\\. Fix: give each rank several CPUs at the launcher[^\\n]*"
                + "JCOLL_CPU_AFFINITY=keep keeps the launcher's binding", machineCpus);
        assertFalse(out.contains("sharing 0"), "the binding the ranks shared is gone: " + out);
    }

    @Test
    void keptBindingsAreReportedOnEveryRankWithTheFix() throws Exception {
        String out = everyRank(job(Map.of("JCOLL_TRANSPORT", "tcp", "JCOLL_CPU_AFFINITY", "keep")),
                "[^\\n]*WARNING: this process may run on 1 CPU \\(CPU 0\\)[^\\n]*Fix: start the process without a "
                + "one-CPU binding", "0");
        assertTrue(out.contains("WARNING: rank 0: this process may run on 1 CPU"), out);
        // both ranks were bound to CPU 0: each is told the other shares it
        assertTrue(out.contains("bound to CPUs 0, which other ranks on this host are bound to as well: rank 1 "
                + "(CPUs 0, sharing 0)"), out);
        assertTrue(out.contains("as well: rank 0 (CPUs 0, sharing 0)"), out);
    }

    @Test
    void aRankThatCannotWidenStaysBoundAndSaysWhy() throws Exception {
        // no taskset on the ranks' PATH (a JVM looks a command up on the PATH it started with)
        String out = everyRank(job(Map.of("JCOLL_TRANSPORT", "tcp", "PATH", "/nonexistent")),
                "[^\\n]*WARNING: this process was bound to 1 CPU \\(CPU 0\\)[^\\n]*; jcoll could not widen it to CPUs "
                + machineCpus + " \\([^\\n]*\\): taskset \\(util-linux\\) could not be run: [^\\n]*Fix: give each "
                + "rank several CPUs at the launcher", "0");
        assertTrue(out.contains("as well: rank 0 (CPUs 0, sharing 0)"), "still bound, still shared: " + out);
    }

    @Test
    void aPolicyThatIsNeitherWidenNorKeepIsRefusedBeforeAnythingOpens() throws Exception {
        Commands.Result r = job(Map.of("JCOLL_TRANSPORT", "tcp", "JCOLL_CPU_AFFINITY", "narrow"));
        String out = r.output();
        assertTrue(r.exit() != 0, out);
        assertTrue(out.contains("JCOLL_CPU_AFFINITY=narrow is neither 'widen'"), out);
    }
}
