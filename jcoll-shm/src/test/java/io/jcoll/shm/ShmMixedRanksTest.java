package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.spi.Operation;
import io.jcoll.testing.Case;
import io.jcoll.testing.Commands;
import io.jcoll.testing.Ops;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Thread ranks and process ranks in one communicator on one host: ranks 0 and 1 are threads of this JVM, rank 2 a
 * process of its own ({@link MixedProcessRank}). Two ranks share one process's memory and the third does not, so
 * each rank reaches the others' memory two ways: within its process, and across (single copy reads every peer with
 * {@code process_vm_readv}, its own process too).
 */
class ShmMixedRanksTest {

    private static final int RANKS = 3;
    private static final int CALLS = 600;

    /**
     * The soak's mix with its low thresholds (every path: boxes, slots, single copy, the chunked in-place exchange,
     * the reading all-reduce), every result checked against the reference on every rank, all-reduces alike in their
     * bits; the network each rank reports agrees; nothing is left in the segment directory.
     */
    @Test
    void threadRanksAndAProcessRankShareOneSegmentAndAgreeOnEveryResult(@TempDir Path dir) throws Exception {
        long seed = new SplittableRandom().nextLong(1, 1L << 40);
        int port = ShmGroup.freePort();
        Map<String, String> settings = new HashMap<>(ShmSoakTest.LOW_THRESHOLDS);
        settings.put("JCOLL_SHM_DIR", dir.toString());
        settings.put("JCOLL_SHM_THREADS", "1");

        Map<String, String> env = new HashMap<>(settings);
        env.putAll(Map.of("JCOLL_RANK", "2", "JCOLL_WORLD_SIZE", Integer.toString(RANKS),
                "JCOLL_MASTER_ADDR", "127.0.0.1", "JCOLL_MASTER_PORT", Integer.toString(port),
                "JCOLL_TOKEN", ShmGroup.TOKEN, "JCOLL_TRANSPORT", "shm", "JCOLL_TIMEOUT", "60s"));
        CompletableFuture<Commands.Result> processRank = CompletableFuture.supplyAsync(() -> {
            try {
                return Commands.run(List.of(Commands.java(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                        MixedProcessRank.class.getName(), Long.toString(seed), Integer.toString(CALLS)), env, 240);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });

        List<String[]> threadRanks = Ranks.all(2, Duration.ofMinutes(4), rank -> {
            try (Communicator comm = ShmGroup.join(rank, RANKS, port, settings)) {
                return new String[] {comm.network().summary(), Long.toString(run(comm, cases(RANKS, seed, CALLS)))};
            }
        });
        Commands.Result process = processRank.get();
        String output = process.output();
        assertEquals(0, process.exit(), "the process rank (seed " + seed + "):\n" + output);
        assertTrue(output.contains("DONE"), output);
        System.out.printf("mixed ranks (2 threads, 1 process), %d calls (seed %d): %s%n", CALLS, seed,
                threadRanks.get(0)[0]);
        for (String[] rank : threadRanks) {
            assertTrue(output.contains("NETWORK " + rank[0]), "the ranks report different networks: " + rank[0]
                    + "\n" + output);
            assertTrue(output.contains("HASH " + rank[1]), "an all-reduce's bits differ between a thread rank and the "
                    + "process rank (seed " + seed + "): " + rank[1] + "\n" + output);
        }
        assertTrue(threadRanks.get(0)[0].contains("among the " + RANKS + " ranks"), threadRanks.get(0)[0]);
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "a file was left in the segment directory");
        }
    }

    /** The cases every rank runs, alike from one seed: the soak's run-up over every operation, then its mix. */
    static List<Case> cases(int n, long seed, int calls) {
        List<Case> cases = new ArrayList<>(ShmSoakTest.coverage(n, seed));
        cases.addAll(ShmSoakTest.mix(n, calls, seed));
        return cases;
    }

    /**
     * Runs {@code cases} on {@code comm}, blocking and asynchronous in turn; each throws, naming the case, on a wrong
     * result. Returns the all-reduce outputs' bits folded into one hash, to compare across ranks.
     */
    static long run(Communicator comm, List<Case> cases) {
        long hash = 1;
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            double[] result = c.run(Ops.of(comm, (i & 1) == 1));
            if (c.operation() == Operation.ALL_REDUCE) {
                hash = 31 * hash + ShmSoakTest.bitsHash(result);
            }
        }
        return hash;
    }
}
