package io.jcoll.examples;

import io.jcoll.launch.Launcher;
import org.junit.jupiter.api.Assumptions;
import io.jcoll.testing.Commands;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every example as the README runs it: 4 ranks in separate JVMs through the
 * launcher behind {@code ./jcoll launch -n 4 --}, each checking its own results.
 */
class ExamplesTest {

    record Run(int exit, String output) {
    }

    static Run launch(Class<?> main, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int exit = Launcher.launch(new Launcher.Plan(4, System.getProperty("java.class.path"), main.getName(),
                List.of(args), List.of("-Xmx256m"), Duration.ofSeconds(15)), print, print);
        return new Run(exit, out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void quickStart() {
        Run r = launch(QuickStart.class);
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("average is 1.5"), r.output());
    }

    @Test
    void dataParallelTrainingMatchesOneProcess() {
        Run r = launch(DataParallelTraining.class, "--check");
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("loss curve matches one process on whole batches"), r.output());
        assertTrue(r.output().contains("parameters identical on all 4 ranks, 3 AllReduce calls a step"), r.output());
    }

    @Test
    void mixtureOfExpertsRoutesAndCombines() {
        Run r = launch(MixtureOfExperts.class);
        assertEquals(0, r.exit(), r.output());
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(r.output().contains("rank " + rank + ": 512 tokens routed to 8 experts on 4 ranks"), r.output());
        }
        // skewed routing: the last rank's experts are off, so it receives nothing, and rank 0 gets the most
        assertTrue(r.output().matches("(?s).*rank 2: 512 tokens routed to 8 experts on 4 ranks \\(sent per rank "
                + "\\[\\d+, \\d+, \\d+, 0\\].*"), r.output());
        assertTrue(r.output().contains("rank 3: 512 tokens") && r.output().matches("(?s).*\\[3\\] rank 3:[^\\n]*received 0\\).*"),
                r.output());
    }

    @Test
    void twoDimensionalParallelMatchesOneProcess() {
        Run r = launch(TwoDimensionalParallel.class);
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("tensor x data parallel (2 x 2 ranks): 60 steps, weights equal to one process's"),
                r.output());
    }

    @Test
    void pipelineParallelMatchesOneProcess() {
        Run r = launch(PipelineParallel.class);
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("pipeline of 4 stages, 4 microbatches: 30 steps")
                && r.output().contains("loss curve and weights equal to one process's"), r.output());
    }

    @Test
    void hybridShardedMatchesTheUnshardedRun() {
        Run r = launch(HybridSharded.class);
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("hybrid sharded (2 replicas x 2 shards): 50 steps, parameters equal to the "
                + "unsharded run"), r.output());
    }

    @Test
    void shardedTrainingMatchesTheUnshardedRun() {
        Run r = launch(ShardedTraining.class);
        assertEquals(0, r.exit(), r.output());
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(r.output().contains("rank " + rank + ": 100 steps"), r.output());
        }
    }


    /** The mpirun example, where Open MPI is installed (.ci/run installs it). */
    @Test
    void mpiLaunch() throws Exception {
        String mpirun = Commands.onPath("mpirun.openmpi") ? "mpirun.openmpi" : Commands.onPath("mpirun") ? "mpirun" : null;
        Assumptions.assumeTrue(mpirun != null, "SKIPPED: mpirun is not installed (apt-get install openmpi-bin)");
        Commands.Result r = Commands.run(List.of(mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "4",
                Commands.java(), "-Xmx256m", "-cp", System.getProperty("java.class.path"), MpiLaunch.class.getName()),
                Map.of(), 120);
        String out = r.output();
        assertEquals(0, r.exit(), out);
        for (int rank = 0; rank < 4; rank++) {
            assertTrue(out.contains("rank " + rank + " of 4 (local " + rank + ") over mpi: sum of ranks + 1 is 10"), out);
        }
    }
}
