package io.jcoll.shm;

import io.jcoll.shm.it.LoopingRankMain;
import io.jcoll.testing.StallWatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Signals from outside to one rank of a 3-process job over shared memory started by {@code jcoll launch}, in the
 * middle of all-reduces: SIGKILL (the survivors see its process gone) and SIGSTOP (its process lives but never
 * arrives: the timeout names it). Every survivor must name rank 1 within JCOLL_TIMEOUT + 1 s of the signal (the
 * stop: the timeout runs from the call's start), and no file may be left in the segment directory.
 */
class ShmFaultTest {

    static final int TIMEOUT_SECONDS = 4;
    /** Rank processes a job runs: 3, or {@code -Djcoll.shm.fault.ranks=N} on a host with the cores for more. */
    static final int RANKS = Integer.getInteger("jcoll.shm.fault.ranks", 3);
    /** How long a job may run before the test ends it: ranks that never finish fail the test, never hang it. */
    static final long JOB_LIMIT_SECONDS = 150;
    // the launcher pads ranks to one width ("[ 1]" among 16)
    static final Pattern IN = Pattern.compile("\\[ *(\\d+)] IN pid=(\\d+) transport=(\\w+)");
    static final Pattern CAUGHT = Pattern.compile("\\[ *(\\d+)] CAUGHT (\\w+) peer=(-?\\d+) at=(\\d+): (.*)");

    /**
     * The job's output, its rank processes, when rank 1 was signalled, and the stalls of the whole host this JVM saw
     * meanwhile.
     */
    record Job(List<String> lines, int ranks, long signalledAt, StallWatch stalls) {
    }

    static Job runAndSignal(String signal, Path dir) throws Exception {
        return runAndSignal(signal, dir, "allreduce");
    }

    static Job runAndSignal(String signal, Path dir, String op) throws Exception {
        return runAndSignal(signal, dir, op, Map.of());
    }

    static Job runAndSignal(String signal, Path dir, String op, Map<String, String> settings) throws Exception {
        return runAndSignal(signal, dir, op, settings, RANKS);
    }

    /**
     * {@code ranks} rank processes looping over 1 MB calls of {@code op} with {@code settings} besides the test's;
     * {@code signal} (null: none) for rank 1 once all are in.
     */
    static Job runAndSignal(String signal, Path dir, String op, Map<String, String> settings, int ranks)
            throws Exception {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.jcoll.launch.Launcher", "-n", Integer.toString(ranks), "--",
                LoopingRankMain.class.getName(), "1024", signal == null ? "60" : "100000000", op);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("JCOLL_TIMEOUT", TIMEOUT_SECONDS + "s");
        pb.environment().put("JCOLL_LAUNCH_GRACE", "5");
        pb.environment().put("JCOLL_TRANSPORT", "shm");
        pb.environment().put("JCOLL_SHM_DIR", dir.toString());
        pb.environment().put("JCOLL_JAVA_OPTS", "-Xmx128m");
        pb.environment().putAll(settings);
        Process launcher = pb.start();
        Thread limit = new Thread(() -> {
            try {
                Thread.sleep(JOB_LIMIT_SECONDS * 1000);
            } catch (InterruptedException done) {
                return;
            }
            launcher.descendants().forEach(ProcessHandle::destroyForcibly);
            launcher.destroyForcibly(); // its output ends, and the assertions below say what was missing
        }, "job-limit");
        limit.setDaemon(true);
        limit.start();
        List<String> lines = new ArrayList<>();
        StallWatch stalls = StallWatch.start();
        long victim = -1;
        int in = 0;
        long signalledAt = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
                Matcher m = IN.matcher(line);
                if (m.find()) {
                    assertEquals("shm", m.group(3), line);
                    in++;
                    if (m.group(1).equals("1")) {
                        victim = Long.parseLong(m.group(2));
                    }
                    if (in == ranks && signal != null) {
                        Thread.sleep(300);
                        signalledAt = System.currentTimeMillis();
                        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(victim)).start().waitFor());
                    }
                }
            }
        }
        limit.interrupt();
        stalls.close();
        assertTrue(launcher.waitFor(60, TimeUnit.SECONDS), String.join("\n", lines));
        if (signal != null) {
            new ProcessBuilder("kill", "-KILL", Long.toString(victim)).start().waitFor(); // a stopped one, if still there
        }
        return new Job(lines, ranks, signalledAt, stalls);
    }

    private static void assertSurvivorsNamedRankOne(Job job, Set<String> exceptions, long boundMillis, String what) {
        int survivors = 0;
        for (String line : job.lines()) {
            Matcher m = CAUGHT.matcher(line);
            if (m.find()) {
                survivors++;
                long caughtAt = Long.parseLong(m.group(4));
                long after = caughtAt - job.signalledAt();
                long stalled = job.stalls().stalledMillis(job.signalledAt(), caughtAt);
                System.out.println(what + ": rank " + m.group(1) + " named rank " + m.group(3) + " " + after
                        + " ms after the signal" + (stalled > 0 ? " (the host stalled " + stalled + " ms of them)" : "")
                        + ": " + m.group(2) + ": " + m.group(5));
                assertEquals("1", m.group(3), line);
                assertTrue(exceptions.contains(m.group(2)), line);
                assertTrue(after - stalled <= boundMillis, "named after " + after + " ms, " + stalled
                        + " of them a stall of the host: " + line);
            }
        }
        assertEquals(job.ranks() - 1, survivors, String.join("\n", job.lines()));
    }

    private static void assertEmpty(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(), files.toList());
        }
    }

    @Test
    void aRankKilledWithSigkillIsNamedByEverySurvivorAtOnce(@TempDir Path dir) throws Exception {
        Job job = runAndSignal("KILL", dir);
        assertSurvivorsNamedRankOne(job, Set.of("PeerFailureException"), (TIMEOUT_SECONDS + 1) * 1000L, "SIGKILL");
        assertEmpty(dir);
    }

    @Test
    void aRankStoppedWithSigstopIsNamedWhenTheTimeoutRunsOut(@TempDir Path dir) throws Exception {
        Job job = runAndSignal("STOP", dir);
        // a survivor whose own timeout comes a moment later learns it from the first one's abort, naming rank 1 too
        assertSurvivorsNamedRankOne(job, Set.of("CollectiveTimeoutException", "PeerFailureException"), (TIMEOUT_SECONDS + 1) * 1000L, "SIGSTOP");
        assertEmpty(dir);
    }

    /**
     * Rank processes reading each other's buffers (single copy, which all-to-alls take from 512 KB: the 1 MB ones
     * here do): every result checked by the ranks, and the ranks say single copy is on.
     */
    @Test
    void rankProcessesReadEachOthersBuffers(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProcessVm.unavailableReason() == null,
                ProcessVm.unavailableReason()); // the ranks run this JVM's java
        Job job = runAndSignal(null, dir, "alltoall");
        long in = job.lines().stream().filter(l -> IN.matcher(l).find()).count();
        assertEquals(RANKS, in, String.join("\n", job.lines()));
        for (String line : job.lines()) {
            if (IN.matcher(line).find()) {
                assertTrue(line.contains("for all-to-alls from 512 KiB"), line);
            }
        }
        assertEquals(RANKS, job.lines().stream().filter(l -> l.endsWith("DONE")).count(), String.join("\n", job.lines()));
        assertEmpty(dir);
    }

    /**
     * In-place all-to-alls read in chunks (JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN: three ranks otherwise keep them on the
     * slots), every result checked by the ranks; then a rank killed in them, named by every survivor at once.
     */
    @Test
    void inPlaceAllToAllsReadInChunksAreRightAndARankKilledInOneIsNamed(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProcessVm.unavailableReason() == null,
                ProcessVm.unavailableReason());
        rightThenKilledIsNamed(dir, "alltoall-in-place", Map.of("JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN", "1"),
                "all-to-alls from 512 KiB (in place from 512 KiB, through at most",
                "SIGKILL during an in-place all-to-all read in chunks");
    }

    /**
     * All-reduces in place that read across processes (JCOLL_SHM_SINGLE_COPY_REDUCE_MIN: three ranks otherwise keep
     * them on the slots), every result checked by the ranks; then a rank killed in them, named by every survivor
     * at once.
     */
    @Test
    void allReducesReadAcrossProcessesAreRightAndARankKilledInOneIsNamed(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProcessVm.unavailableReason() == null,
                ProcessVm.unavailableReason());
        rightThenKilledIsNamed(dir, "allreduce", Map.of("JCOLL_SHM_SINGLE_COPY_REDUCE_MIN", "1"),
                "and all-reduces from 1 B", "SIGKILL during an all-reduce read across processes");
    }

    private static void rightThenKilledIsNamed(Path dir, String op, Map<String, String> settings, String networkSays,
                                               String what) throws Exception {
        rightThenKilledIsNamed(dir, op, settings, networkSays, what, RANKS);
    }

    /**
     * {@code ranks} rank processes run {@code op} with {@code settings} to the end, every result checked and every
     * rank's network saying {@code networkSays}; then again with rank 1 killed, named by every survivor at once. No
     * file is left either time.
     */
    private static void rightThenKilledIsNamed(Path dir, String op, Map<String, String> settings, String networkSays,
                                               String what, int ranks) throws Exception {
        Job job = runAndSignal(null, dir, op, settings, ranks);
        assertEquals(ranks, job.lines().stream().filter(l -> l.endsWith("DONE")).count(), String.join("\n", job.lines()));
        assertTrue(job.lines().stream().filter(l -> IN.matcher(l).find()).allMatch(l -> l.contains(networkSays)),
                String.join("\n", job.lines()));
        assertEmpty(dir);
        Job killed = runAndSignal("KILL", dir, op, settings, ranks);
        assertSurvivorsNamedRankOne(killed, Set.of("PeerFailureException"), (TIMEOUT_SECONDS + 1) * 1000L, what);
        assertEmpty(dir);
    }

    /**
     * Broadcasts from rank 0, every result checked; then rank 1 killed in them. The other receivers wait on the root
     * alone, never on rank 1, and must still name rank 1 at once: a wait watches every peer's process, not only the
     * one it waits on.
     */
    @Test
    void aRankKilledInBroadcastsIsNamedByReceiversThatWaitOnlyOnTheRoot(@TempDir Path dir) throws Exception {
        rightThenKilledIsNamed(dir, "broadcast", Map.of(), "shared memory among the " + RANKS + " ranks",
                "SIGKILL during broadcasts");
    }

    /**
     * Two rank processes that copy alone, in-place broadcasts from rank 0 read up to 2 MB (a single-copy size given:
     * no pick), so that the root writes half of each 1 MB message into rank 1's buffer with process_vm_writev while
     * rank 1 reads the rest: every result checked by the ranks; then rank 1 killed in them, named by the root at once.
     */
    @Test
    void inPlaceBroadcastsWhoseRootWritesAcrossProcessesAreRightAndAReceiverKilledIsNamed(@TempDir Path dir)
            throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProcessVm.unavailableReason() == null,
                ProcessVm.unavailableReason());
        rightThenKilledIsNamed(dir, "broadcast", Map.of("JCOLL_SHM_THREADS", "1",
                        "JCOLL_SHM_SINGLE_COPY_BROADCAST_MIN", "128K"), "in-place broadcasts' roots too up to 2 MiB",
                "SIGKILL during in-place broadcasts whose root writes", 2);
    }

    /**
     * Two rank processes that copy alone, gathers of 1 MB to rank 0, which rank 1 makes by writing its block into
     * rank 0's output with process_vm_writev (JCOLL_SHM_SINGLE_COPY=sized: no pick sends them to the slots): every
     * result checked by the root; then rank 1 killed in them, named by rank 0 at once.
     */
    @Test
    void gathersWrittenAcrossProcessesAreRightAndARankKilledInOneIsNamed(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProcessVm.unavailableReason() == null,
                ProcessVm.unavailableReason());
        rightThenKilledIsNamed(dir, "gather", Map.of("JCOLL_SHM_THREADS", "1", "JCOLL_SHM_SINGLE_COPY", "sized"),
                "gathers to a root from 512 KiB", "SIGKILL during gathers written across "
                        + "processes", 2);
    }

    /** A rank killed while its peers read its buffer, or wait for it to read theirs: named by every survivor at once. */
    @Test
    void aRankKilledDuringSingleCopyIsNamedByEverySurvivorAtOnce(@TempDir Path dir) throws Exception {
        Job job = runAndSignal("KILL", dir, "alltoall");
        assertSurvivorsNamedRankOne(job, Set.of("PeerFailureException"), (TIMEOUT_SECONDS + 1) * 1000L,
                "SIGKILL during single copy");
        assertEmpty(dir);
    }
}
