package io.jcoll.tcp;

import io.jcoll.launch.Launcher;
import io.jcoll.tcp.it.DyingRankMain;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ranks as separate JVM processes on loopback, started through the real {@code ./jcoll launch}. */
class MultiProcessTest {

    /** Four processes through the jcoll script, each checking the whole matrix against the reference. */
    @Test
    void fourProcessesVerifyEveryCollective() throws Exception {
        Path script = Path.of("..", "jcoll").toAbsolutePath().normalize();
        assertTrue(Files.isExecutable(script), "the jcoll script at " + script);
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), "launch", "-n", "4", "--",
                "io.jcoll.tcp.it.VerifyMain").redirectErrorStream(true);
        pb.environment().put("JCOLL_CP", System.getProperty("java.class.path"));
        pb.environment().put("JCOLL_JAVA_OPTS", "-Xmx256m");
        pb.environment().put("JCOLL_TIMEOUT", "60s");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "launch finished");
        assertEquals(0, p.exitValue(), out);
        for (int r = 0; r < 4; r++) {
            assertTrue(out.contains("[" + r + "] rank " + r + " verified"), out);
        }
    }

    /** A rank that dies mid-AllReduce: every survivor names it, fast; launch names it and fails. */
    @Test
    void aRankThatDiesMidAllReduceIsNamedByEveryOther() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Launcher.launch(new Launcher.Plan(4, System.getProperty("java.class.path"),
                DyingRankMain.class.getName(), List.of("2"), List.of("-Xmx256m", "-XX:MaxDirectMemorySize=512m"),
                Duration.ofSeconds(20)), new PrintStream(out, true), new PrintStream(err, true));
        String text = out.toString(StandardCharsets.UTF_8);
        String errors = err.toString(StandardCharsets.UTF_8);
        assertEquals(42, code, text + errors);
        assertTrue(errors.contains("rank 2 failed first (exit code 42)"), errors);
        Pattern caught = Pattern.compile("\\[(\\d)] CAUGHT (\\w+) peer=(\\d+) after ([0-9.]+) s: (.*)");
        int survivors = 0;
        for (String line : text.split("\n")) {
            Matcher m = caught.matcher(line);
            if (m.matches()) {
                survivors++;
                assertEquals("2", m.group(3), line);
                assertTrue(m.group(5).contains("rank 2"), line);
                assertTrue(Double.parseDouble(m.group(4)) < 5, "detected within seconds: " + line);
            }
        }
        assertEquals(3, survivors, text);
    }
}
