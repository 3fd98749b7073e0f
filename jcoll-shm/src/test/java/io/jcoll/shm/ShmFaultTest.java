package io.jcoll.shm;

import io.jcoll.shm.it.LoopingRankMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    static final Pattern IN = Pattern.compile("\\[(\\d)] IN pid=(\\d+) transport=(\\w+)");
    static final Pattern CAUGHT = Pattern.compile("\\[(\\d)] CAUGHT (\\w+) peer=(-?\\d+) at=(\\d+): (.*)");

    record Job(List<String> lines, long signalledAt) {
    }

    static Job runAndSignal(String signal, Path dir) throws Exception {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.jcoll.launch.Launcher", "-n", "3", "--",
                LoopingRankMain.class.getName(), "1024", "100000000");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("JCOLL_TIMEOUT", TIMEOUT_SECONDS + "s");
        pb.environment().put("JCOLL_LAUNCH_GRACE", "5");
        pb.environment().put("JCOLL_TRANSPORT", "shm");
        pb.environment().put("JCOLL_SHM_DIR", dir.toString());
        pb.environment().put("JCOLL_JAVA_OPTS", "-Xmx128m");
        Process launcher = pb.start();
        List<String> lines = new ArrayList<>();
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
                    if (in == 3) {
                        Thread.sleep(300);
                        signalledAt = System.currentTimeMillis();
                        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(victim)).start().waitFor());
                    }
                }
            }
        }
        assertTrue(launcher.waitFor(60, TimeUnit.SECONDS), String.join("\n", lines));
        new ProcessBuilder("kill", "-KILL", Long.toString(victim)).start().waitFor(); // a stopped one, if still there
        return new Job(lines, signalledAt);
    }

    private static void assertSurvivorsNamedRankOne(Job job, Set<String> exceptions, long boundMillis, String what) {
        int survivors = 0;
        for (String line : job.lines()) {
            Matcher m = CAUGHT.matcher(line);
            if (m.find()) {
                survivors++;
                long after = Long.parseLong(m.group(4)) - job.signalledAt();
                System.out.println(what + ": rank " + m.group(1) + " named rank " + m.group(3) + " " + after
                        + " ms after the signal: " + m.group(2) + ": " + m.group(5));
                assertEquals("1", m.group(3), line);
                assertTrue(exceptions.contains(m.group(2)), line);
                assertTrue(after <= boundMillis, "named after " + after + " ms: " + line);
            }
        }
        assertEquals(2, survivors, String.join("\n", job.lines()));
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
}
