package io.jcoll.spark;

import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spark's {@code local-cluster[2,2,1024]}: a standalone master and two workers in this JVM, each worker starting an
 * executor JVM of its own, so that the stage's four tasks are threads of two separate processes. Each worker
 * announces two GPUs and each task asks for one, as on a GPU cluster; there is no GPU here, so the ranks run on CPU
 * transports, and the test checks that each task was told to drive the GPU Spark gave it.
 */
@EnabledForJreRange(max = JRE.JAVA_22, disabledReason = "Spark 4.0 runs on Java 17 to 22: its Hadoop client "
        + "calls Subject.getSubject, which Java 23 and later refuse")
class LocalClusterTest {

    private static JavaSparkContext spark;

    @BeforeAll
    static void startSpark() throws Exception {
        // the workers build the executors' command from SPARK_HOME (set for this JVM in the pom): an empty jars/
        // there, and this JVM's class path for the executors
        Path home = Files.createDirectories(Path.of(System.getenv("SPARK_HOME"), "jars")).getParent();
        // Spark's GPU scheduling as on a GPU cluster: each worker announces two (pretend) GPUs, each task takes one
        Path gpus = home.resolve("gpus.sh");
        Files.writeString(gpus, "#!/bin/sh\necho '{\"name\": \"gpu\", \"addresses\": [\"0\", \"1\"]}'\n");
        Files.setPosixFilePermissions(gpus, PosixFilePermissions.fromString("rwxr-xr-x"));
        spark = new JavaSparkContext(new SparkConf().setMaster("local-cluster[2,2,1024]").setAppName("jcoll-spark-cluster")
                .set("spark.ui.enabled", "false").set("spark.driver.host", "127.0.0.1")
                .set("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                .set("spark.worker.resource.gpu.amount", "2").set("spark.worker.resource.gpu.discoveryScript", gpus.toString())
                .set("spark.executor.resource.gpu.amount", "2").set("spark.task.resource.gpu.amount", "1"));
    }

    @AfterAll
    static void stopSpark() {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void everyCollectiveOnRanksInTwoExecutorProcesses() {
        long firstId = new SplittableRandom().nextLong(1L << 40);
        List<String> results = SparkJcoll.run(spark.parallelize(IntStream.range(0, 4).boxed().collect(Collectors.toList()), 4),
                Map.of("JCOLL_TIMEOUT", "60s"), (rows, comm) -> ProcessHandle.current().pid() + " GPU "
                        + SparkJcoll.assignedGpu(BarrierTaskContext.get()) + " " + BarrierStageTest.everyCollective(comm, firstId));
        assertEquals(2, results.stream().map(r -> r.substring(0, r.indexOf(' '))).distinct().count(), results.toString());
        // the two tasks of each executor drive the two GPUs Spark gave them, one each
        assertEquals(4, results.stream().map(r -> r.substring(0, r.indexOf(" GPU ") + 6)).distinct().count(),
                results.toString());
    }

    /**
     * In the stage's first attempt rank 3 halts its executor's JVM in the middle of an AllReduce loop (its executor
     * neighbour, rank 1 or 2, dies with it). The ranks of the other executor must fail within a second, naming a
     * dead rank, although JCOLL_TIMEOUT is a minute; Spark then retries the stage on a fresh executor, and it
     * succeeds. The processes note the times in files: the wall clock is one on this machine.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aKilledExecutorFailsTheOtherExecutorsRanksAtOnceAndTheRetrySucceeds(String transport) throws Exception {
        Path notes = Files.createTempDirectory("jcoll-spark-kill");
        String dir = notes.toString();
        List<String> results = SparkJcoll.run(spark.parallelize(IntStream.range(0, 4).boxed().collect(Collectors.toList()), 4),
                Map.of("JCOLL_TIMEOUT", "60s", "JCOLL_TRANSPORT", transport), (rows, comm) -> {
                    int attempt = BarrierTaskContext.get().stageAttemptNumber();
                    double[] x = new double[1024];
                    for (int step = 0; step < 40; step++) {
                        if (attempt == 0 && comm.rank() == 3 && step == 20) {
                            Files.writeString(Path.of(dir, "killed"), Long.toString(System.currentTimeMillis()));
                            Runtime.getRuntime().halt(137);
                        }
                        try {
                            java.util.Arrays.fill(x, 1);
                            comm.allReduce(HostBuffer.of(x), HostBuffer.of(x), x.length, ReduceOp.SUM);
                        } catch (JcollException e) {
                            Files.writeString(Path.of(dir, "failed-" + comm.rank()), System.currentTimeMillis() + " "
                                    + e.getMessage());
                            throw e;
                        }
                        if (x[0] != 4) {
                            throw new AssertionError("step " + step + ": " + x[0]);
                        }
                    }
                    return "attempt " + attempt + " done";
                });
        assertEquals(Collections.nCopies(4, "attempt 1 done"), results);
        long killed = Long.parseLong(Files.readString(notes.resolve("killed")).strip());
        List<String> failures = new ArrayList<>();
        try (var files = Files.list(notes)) {
            for (Path f : (Iterable<Path>) files.filter(f -> f.getFileName().toString().startsWith("failed-"))::iterator) {
                failures.add(Files.readString(f));
            }
        }
        assertTrue(failures.size() >= 2, "the other executor's two ranks failed: " + failures);
        for (String f : failures) {
            long after = Long.parseLong(f.substring(0, f.indexOf(' '))) - killed;
            System.out.printf("%s: a rank of the other executor failed %d ms after rank 3's JVM halted%n", transport, after);
            assertTrue(after < 1000, after + " ms: " + f);
            // jcoll names the dead rank, or Spark, having seen the executor go, killed the task first
            assertTrue(f.matches("(?s).*(rank [123]|Spark killed the task of partition [02]).*"),
                    "a dead rank, or Spark's kill, is named: " + f);
        }
    }
}
