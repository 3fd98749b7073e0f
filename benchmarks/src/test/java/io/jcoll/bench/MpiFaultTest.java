package io.jcoll.bench;

import io.jcoll.testing.Commands;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults under mpirun on the MPI transport, separate processes: a rank killed
 * with SIGKILL, a rank stopped with SIGSTOP (alive, silent), and a rank whose
 * connections are reset mid-transfer (Open MPI's TCP path, {@code FailureDrill
 * cut}). The job must end non-zero naming rank 1, in bounded time; where the
 * survivors outlive the fault, each ends with an exception naming rank 1.
 */
class MpiFaultTest {

    private static final int RANKS = 3;
    private static final Pattern PID = Pattern.compile("rank (\\d+) over mpi: all in;.* IN pid=(\\d+)");

    @BeforeAll
    static void needsOpenMpi() {
        Assumptions.assumeTrue(Commands.onPath("mpirun.openmpi") || Commands.onPath("mpirun"),
                "SKIPPED: mpirun is not installed (apt-get install openmpi-bin)");
    }

    private static Process start(Path log, String mode, String... mca) throws IOException {
        String mpirun = Commands.onPath("mpirun.openmpi") ? "mpirun.openmpi" : "mpirun";
        List<String> cmd = new ArrayList<>(List.of(mpirun, "--allow-run-as-root", "--oversubscribe", "-np",
                Integer.toString(RANKS)));
        cmd.addAll(List.of(mca));
        cmd.addAll(List.of(Commands.java(), "-Xmx256m", "-XX:MaxDirectMemorySize=512m", "-cp",
                System.getProperty("java.class.path"), FailureDrill.class.getName(), mode));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("JCOLL_TRANSPORT", "mpi");
        pb.environment().put("JCOLL_TIMEOUT", "5s");
        return pb.start();
    }

    /** Waits for every rank's "all in" line; returns rank 1's pid. */
    private static long victimPid(Path log, Process job) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < until && job.isAlive()) {
            String out = Files.readString(log);
            Matcher m = PID.matcher(out);
            long victim = -1;
            int in = 0;
            while (m.find()) {
                in++;
                if (m.group(1).equals("1")) {
                    victim = Long.parseLong(m.group(2));
                }
            }
            if (in == RANKS && victim > 0) {
                return victim;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the job never got going: " + Files.readString(log));
    }

    /** A job waiting for a signal, and when rank 1 got it (epoch millis). */
    private record Signalled(Path log, Process job, long victim, long sent) {
    }

    /** Starts the job, lets the ranks get into their AllReduce loop, then sends rank 1 {@code signal}. */
    private static Signalled signalRankOne(String signal) throws Exception {
        Path log = Files.createTempFile("mpi-" + signal.toLowerCase(java.util.Locale.ROOT), ".log");
        Process job = start(log, "external");
        long victim = victimPid(log, job);
        Thread.sleep(300);
        long sent = System.currentTimeMillis();
        new ProcessBuilder("kill", "-" + signal, Long.toString(victim)).start().waitFor();
        return new Signalled(log, job, victim, sent);
    }

    private static String finish(Process job, Path log, long victim) throws Exception {
        boolean ended = job.waitFor(90, TimeUnit.SECONDS);
        ProcessHandle.of(victim).ifPresent(ProcessHandle::destroyForcibly); // a stopped rank ignores SIGTERM
        if (!ended) {
            job.destroyForcibly();
        }
        String out = Files.readString(log);
        assertTrue(ended, "the job hung: " + out);
        return out;
    }

    /**
     * Open MPI's runtime ends the job about two seconds after a rank's process dies, survivors included; before
     * that, each survivor names the dead rank itself within a second: the rank's store connection closed, and
     * the survivors' departure watchers interrupt their MPI call.
     */
    @Test
    void aKilledRankIsNamedByEverySurvivorWithinASecond() throws Exception {
        Signalled s = signalRankOne("KILL");
        Process job = s.job();
        String out = finish(job, s.log(), s.victim());
        double seconds = (System.currentTimeMillis() - s.sent()) / 1e3;
        System.out.printf("SIGKILL under mpirun: the job ended %.2f s after the signal, exit %d%n", seconds,
                job.exitValue());
        assertNotEquals(0, job.exitValue(), out);
        // "mpirun noticed that process rank 1 with PID ... exited on signal 9 (Killed)"
        assertTrue(out.matches("(?s).*process rank 1 .*signal 9.*"), "mpirun must name rank 1: " + out);
        assertTrue(seconds < 5 + 1, "the job ended " + seconds + " s after the signal; JCOLL_TIMEOUT is 5 s");
        for (int r : new int[] {0, 2}) {
            // a survivor inside its MPI call is interrupted (PeerFailureException); one between two calls of its
            // loop when the departure arrives finds the communicator already aborted by it at its next call
            // (CommunicatorClosedException, as every later call does): both name rank 1 and its departure
            Matcher m = Pattern.compile("CAUGHT (PeerFailure|CommunicatorClosed)Exception peer=1 after [0-9.]+ s "
                    + "at=(\\d+): allReduce on rank " + r + " \\(peer rank 1\\).*rank 1 is gone").matcher(out);
            assertTrue(m.find(), "rank " + r + " did not name rank 1 before the job ended: " + out);
            long late = Long.parseLong(m.group(2)) - s.sent();
            System.out.println("SIGKILL under mpirun: rank " + r + " named rank 1 " + late + " ms after the signal");
            assertTrue(late < 1_000, "named " + late + " ms after the signal; the issue asks for 1 s");
        }
    }

    @Test
    void aStoppedRankIsNamedByEverySurvivor() throws Exception {
        Signalled s = signalRankOne("STOP");
        Path log = s.log();
        Process job = s.job();
        long victim = s.victim();
        long sent = s.sent();
        // mpirun's SIGTERM cannot end a stopped process: once the survivors have reported, the test kills it, as
        // an operator or the batch system would
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < until && Files.readString(log).split("CAUGHT", -1).length - 1 < RANKS - 1) {
            Thread.sleep(100);
        }
        String out = finish(job, log, victim);
        assertNotEquals(0, job.exitValue(), out);
        for (int r : new int[] {0, 2}) {
            // mpirun's own banner may split a rank's line: match the message, then its time where it is whole
            assertTrue(out.contains("allReduce on rank " + r + " (peer rank 1): rank(s) [1] never reached"),
                    "rank " + r + " did not name rank 1: " + out);
            Matcher m = Pattern.compile("at=(\\d+): allReduce on rank " + r + " \\(peer rank 1\\)").matcher(out);
            if (m.find()) {
                long late = Long.parseLong(m.group(1)) - sent;
                System.out.println("SIGSTOP under mpirun: rank " + r + " named rank 1 " + late + " ms after the signal");
                // a survivor still in the call where rank 1 stopped times out first and waits for the one already
                // in the next call (ahead by that call's start: up to a second for 64 MB on two busy cores)
                assertTrue(late < 5_000 + 2_500, "named " + late + " ms after the signal, JCOLL_TIMEOUT is 5 s");
            }
        }
    }

    @Test
    void aResetConnectionEndsTheJobNamingTheRank() throws Exception {
        Path log = Files.createTempFile("mpi-cut", ".log");
        long start = System.currentTimeMillis();
        Process job = start(log, "cut", "--mca", "pml", "ob1", "--mca", "btl", "tcp,self");
        long victim = victimPid(log, job);
        String out = finish(job, log, victim);
        System.out.println("connection reset under mpirun (" + (System.currentTimeMillis() - start) + " ms in all):\n"
                + out);
        assertNotEquals(0, job.exitValue(), out);
        assertTrue(out.contains("rank 1 shut down its connected sockets"), out);
        // Open MPI's TCP path does not report the lost connection to the caller: the ranks' waits run out, and
        // mpirun ends the job naming the first process that exited, the one whose connections were cut
        assertTrue(out.contains("Process name: [[") && out.matches("(?s).*Process name: \\[\\[\\d+,\\d+],1].*")
                || out.matches("(?s).*CAUGHT \\w+ peer=1 .*"), out);
    }
}
