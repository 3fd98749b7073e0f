package io.jcoll.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Spark example as {@code ./jcoll spark} runs it: a JVM of its own with Spark's JVM options, Spark in local mode
 * ({@code local[4,2]}), four tasks forming a communicator in one barrier stage.
 */
@EnabledForJreRange(max = JRE.JAVA_22, disabledReason = "Spark 4.0 runs on Java 17 to 22: its Hadoop client "
        + "calls Subject.getSubject, which Java 23 and later refuse")
class SparkExamplesTest {

    private static String run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g"));
        command.addAll(Arrays.asList(System.getProperty("spark.jvm.options").trim().split("\\s+")));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), SparkDataParallel.class.getName()));
        command.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES));
        String output = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), output);
        return output;
    }

    @Test
    void trainsInABarrierStageAsOneProcessWouldAndAsWellAsMllib() throws Exception {
        String out = run("--check");
        assertTrue(out.contains("4 tasks over shm, stage attempt 0"), out);
        assertTrue(out.contains("weights identical on all 4 ranks"), out);
        assertTrue(out.matches("(?s).*loss curve equal to one process's within [0-9.]+e-[0-9]+.*"), out);
        assertTrue(out.matches("(?s).*accuracy 0\\.[0-9]+ \\(jcoll data-parallel SGD, 120 steps\\), Spark MLlib "
                + "LogisticRegression 0\\.[0-9]+.*"), out);
    }

    @Test
    void aTaskFailingMidTrainingFailsTheStageAndTheRetryTrainsAfresh() throws Exception {
        long start = System.nanoTime();
        String out = run("--check", "--fail-once");
        assertTrue(out.contains("--fail-once: rank 2 fails at step 60"), out);
        assertTrue(out.contains("4 tasks over shm, stage attempt 1"), out);
        assertTrue(out.contains("weights identical on all 4 ranks"), out);
        assertTrue((System.nanoTime() - start) / 1e9 < 120, "the failed attempt and its retry took too long");
    }
}
