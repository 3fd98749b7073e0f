package io.jcoll.tcp;

import io.jcoll.tcp.it.SignalledRankMain;
import io.jcoll.testing.StallWatch;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Signals from outside, as an operator or the kernel would send them, to one
 * rank of a 3-process job started by {@code jcoll launch} (its real main, in its
 * own JVM) in the middle of 256 MB AllReduces: SIGKILL and SIGSTOP. Every
 * survivor must name the rank in time, the launcher must exit non-zero naming
 * it, and no process may be left behind.
 */
class SignalFaultTest {

    static final int TIMEOUT_SECONDS = 5;
    static final Pattern IN = Pattern.compile("\\[(\\d)] IN pid=(\\d+)");
    static final Pattern CAUGHT = Pattern.compile("\\[(\\d)] CAUGHT (\\w+) peer=(-?\\d+) at=(\\d+): (.*)");

    /** The launcher's exit and output, when rank 1 was signalled, and the host's stalls this JVM saw meanwhile. */
    record Job(int exit, List<String> lines, long signalledAt, StallWatch stalls) {
    }

    /** Starts the job, waits until every rank is in, sends {@code signal} to rank 1, and waits for the end. */
    static Job runAndSignal(String signal) throws Exception {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.jcoll.launch.Launcher", "-n", "3", "--",
                SignalledRankMain.class.getName(), "256");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(Map.of("JCOLL_TIMEOUT", TIMEOUT_SECONDS + "s", "JCOLL_LAUNCH_GRACE", "5",
                "JCOLL_JAVA_OPTS", "-Xmx256m -XX:MaxDirectMemorySize=1g"));
        pb.environment().remove("JCOLL_TRANSPORT");
        Process launcher = pb.start();
        List<String> lines = new ArrayList<>();
        StallWatch stalls = StallWatch.start();
        long[] victimPid = {-1};
        int in = 0;
        long signalledAt = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
                Matcher m = IN.matcher(line);
                if (m.find()) {
                    in++;
                    if (m.group(1).equals("1")) {
                        victimPid[0] = Long.parseLong(m.group(2));
                    }
                    if (in == 3) {
                        Thread.sleep(300); // well inside the next AllReduces
                        signalledAt = System.currentTimeMillis();
                        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(victimPid[0]))
                                .start().waitFor());
                    }
                }
            }
        }
        stalls.close();
        assertTrue(launcher.waitFor(90, TimeUnit.SECONDS), String.join("\n", lines));
        if (signal.equals("STOP")) {
            new ProcessBuilder("kill", "-KILL", Long.toString(victimPid[0])).start().waitFor(); // if still there
        }
        return new Job(launcher.exitValue(), lines, signalledAt, stalls);
    }

    static void assertNothingLeftBehind() throws InterruptedException {
        long left = 0;
        for (int i = 0; i < 50; i++) {
            left = ProcessHandle.current().descendants().filter(p -> p.info().command().orElse("").contains("java"))
                    .count();
            if (left == 0) {
                return;
            }
            Thread.sleep(100);
        }
        assertEquals(0, left, "rank processes left behind");
    }

    @Test
    void aRankKilledWithSigkillIsNamedWithinTheTimeout() throws Exception {
        Job job = runAndSignal("KILL");
        String text = String.join("\n", job.lines());
        assertNotEquals(0, job.exit(), text);
        assertTrue(text.contains("rank 1 failed first"), text);
        int survivors = 0;
        for (String line : job.lines()) {
            Matcher m = CAUGHT.matcher(line);
            if (m.find()) {
                survivors++;
                assertEquals("1", m.group(3), line);
                long caughtAt = Long.parseLong(m.group(4));
                long detectedMillis = caughtAt - job.signalledAt();
                long stalled = job.stalls().stalledMillis(job.signalledAt(), caughtAt);
                System.out.println("SIGKILL: rank " + m.group(1) + " named rank 1 " + detectedMillis + " ms after the signal"
                        + (stalled > 0 ? " (the host stalled " + stalled + " ms of them)" : "") + ": "
                        + m.group(2) + ": " + m.group(5));
                assertTrue(detectedMillis - stalled <= (TIMEOUT_SECONDS + 1) * 1000L, "named after " + detectedMillis
                        + " ms, " + stalled + " of them a stall of the host: " + line);
            }
        }
        assertEquals(2, survivors, text);
        assertNothingLeftBehind();
        System.out.println("SIGKILL: launcher exit " + job.exit() + "; " + job.lines().stream()
                .filter(l -> l.contains("failed first")).findFirst().orElse(""));
    }

    @Test
    void aRankStoppedWithSigstopIsNamedAsTheOneThatStoppedAnswering() throws Exception {
        Job job = runAndSignal("STOP");
        String text = String.join("\n", job.lines());
        assertNotEquals(0, job.exit(), text);
        int survivors = 0;
        for (String line : job.lines()) {
            Matcher m = CAUGHT.matcher(line);
            if (m.find()) {
                survivors++;
                assertEquals("CollectiveTimeoutException", m.group(2), line);
                System.out.println("SIGSTOP: rank " + m.group(1) + " after " + (Long.parseLong(m.group(4))
                        - job.signalledAt()) + " ms: " + m.group(2) + ": " + m.group(5));
                assertTrue(m.group(5).contains("rank 1") || m.group(3).equals("1"), line);
            }
        }
        assertEquals(2, survivors, text);
        assertNothingLeftBehind();
        System.out.println("SIGSTOP: launcher exit " + job.exit() + "; " + job.lines().stream()
                .filter(l -> l.contains("failed first")).findFirst().orElse(""));
    }
}
