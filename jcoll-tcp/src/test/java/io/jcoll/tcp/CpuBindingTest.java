package io.jcoll.tcp;

import io.jcoll.testing.Commands;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 2-rank job started under {@code taskset -c 0}, as {@code mpirun}'s default binding leaves a JVM: both ranks
 * still run, and both say, in {@code comm.transport()} and in one loud log line each, that they are bound to one
 * CPU, which the other rank is bound to as well, and how to fix it.
 */
class CpuBindingTest {

    @Test
    void aJobBoundToOneCpuSaysSoOnEveryRank() throws Exception {
        Assumptions.assumeTrue(Commands.onPath("taskset"), "SKIPPED: taskset is not installed (util-linux)");
        Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() > 1, "SKIPPED: this machine has one CPU");
        Commands.Result r = Commands.run(List.of("taskset", "-c", "0", Commands.java(), "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), "io.jcoll.launch.Launcher", "-n", "2", "--",
                "io.jcoll.tcp.it.TransportReportMain"), Map.of("JCOLL_TRANSPORT", "tcp"), 120);
        String out = r.output();
        assertEquals(0, r.exit(), out);
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(out.contains("[" + rank + "] rank " + rank + " transport: tcp"), out);
            assertTrue(out.matches("(?s).*\\[" + rank + "\\] rank " + rank + " transport: [^\\n]*WARNING: this process may "
                    + "run on 1 CPU \\(CPU 0\\)[^\\n]*Fix: start the process without a one-CPU binding.*"), out);
        }
        assertTrue(out.contains("WARNING: rank 0: this process may run on 1 CPU"), out);
        // both ranks were bound to CPU 0: each is told the other shares it
        assertTrue(out.contains("bound to CPUs 0, which other ranks on this host are bound to as well: rank 1 "
                + "(CPUs 0, sharing 0)"), out);
        assertTrue(out.contains("as well: rank 0 (CPUs 0, sharing 0)"), out);
    }
}
