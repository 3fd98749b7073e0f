package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
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
    private static final int TIMEOUT_SECONDS = 4;

    /**
     * The soak's mix with its low thresholds (every path: boxes, slots, single copy, the chunked in-place exchange,
     * the reading all-reduce), every result checked against the reference on every rank, all-reduces alike in their
     * bits; the network each rank reports agrees; nothing is left in the segment directory.
     */
    @Test
    void threadRanksAndAProcessRankShareOneSegmentAndAgreeOnEveryResult(@TempDir Path dir) throws Exception {
        long seed = new SplittableRandom().nextLong(1, 1L << 40);
        int port = ShmGroup.freePort();
        Map<String, String> settings = settings(dir);

        CompletableFuture<Commands.Result> processRank = CompletableFuture.supplyAsync(() -> {
            try {
                return Commands.run(processRank(seed, 1), processRankEnvironment(settings, port, "60s"), 240);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });

        List<String[]> threadRanks = Ranks.all(2, Duration.ofMinutes(4), rank -> {
            try (Communicator comm = ShmGroup.join(rank, RANKS, port, settings)) {
                return new String[] {comm.network().summary(), Long.toString(run(comm, ShmSoakTest.cases(RANKS, CALLS, seed)))};
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

    /**
     * The process rank killed (SIGKILL) while all three loop over the mix: both thread ranks name rank 2 within
     * JCOLL_TIMEOUT and a second, and nothing is left in the segment directory.
     */
    @Test
    void aProcessRankKilledAmongThreadRanksIsNamedByBoth(@TempDir Path dir) throws Exception {
        long seed = new SplittableRandom().nextLong(1, 1L << 40);
        int port = ShmGroup.freePort();
        Map<String, String> settings = settings(dir);
        settings.put("JCOLL_TIMEOUT", TIMEOUT_SECONDS + "s");
        Process victim = Commands.start(processRank(seed, 1_000_000),
                processRankEnvironment(settings, port, TIMEOUT_SECONDS + "s"));
        CountDownLatch running = new CountDownLatch(1);
        AtomicLong killedAt = new AtomicLong(); // set by the killer, read by the thread ranks
        Thread killer = new Thread(() -> {
            try {
                running.await();
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
            killedAt.set(System.nanoTime());
            victim.destroyForcibly(); // SIGKILL
        }, "killer");
        killer.start();
        List<Case> cases = ShmSoakTest.cases(RANKS, CALLS, seed);
        try {
            List<Ranks.Outcome<Long>> outcomes = Ranks.outcomes(2, Duration.ofMinutes(2), rank -> {
                try (Communicator comm = ShmGroup.join(rank, RANKS, port, settings)) {
                    for (int i = 0; ; i++) {
                        if (i == 2 * cases.size()) {
                            running.countDown(); // every path taken twice since all three joined
                        }
                        cases.get(i % cases.size()).run(Ops.of(comm, (i & 1) == 1));
                    }
                } catch (JcollException e) {
                    long after = (System.nanoTime() - killedAt.get()) / 1_000_000;
                    System.out.println("mixed ranks: thread rank " + rank + " named rank " + e.peer() + " " + after
                            + " ms after the kill: " + e);
                    assertTrue(e instanceof PeerFailureException, e.toString());
                    assertEquals(2, e.peer(), e.toString());
                    assertTrue(killedAt.get() != 0 && after <= (TIMEOUT_SECONDS + 1) * 1000L, after + " ms: " + e);
                    return after;
                }
            });
            for (Ranks.Outcome<Long> o : outcomes) {
                o.get();
            }
        } finally {
            killer.interrupt();
            victim.destroyForcibly();
        }
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "a file was left in the segment directory");
        }
    }

    /** The soak's low thresholds, no crews, and segments in {@code dir}: every rank's settings. */
    private static Map<String, String> settings(Path dir) {
        Map<String, String> settings = new HashMap<>(ShmSoakTest.LOW_THRESHOLDS);
        settings.put("JCOLL_SHM_DIR", dir.toString());
        settings.put("JCOLL_SHM_THREADS", "1");
        return settings;
    }

    /** The command that runs the process rank: {@code rounds} times over the mix of {@code seed}. */
    private static List<String> processRank(long seed, int rounds) {
        return List.of(Commands.java(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                MixedProcessRank.class.getName(), Long.toString(seed), Integer.toString(CALLS),
                Integer.toString(rounds));
    }

    /** The process rank's place in the job (rank 2 of {@link #RANKS}) and {@code settings}, as variables. */
    private static Map<String, String> processRankEnvironment(Map<String, String> settings, int port,
                                                              String timeout) {
        Map<String, String> env = new HashMap<>(settings);
        env.putAll(Map.of("JCOLL_RANK", "2", "JCOLL_WORLD_SIZE", Integer.toString(RANKS),
                "JCOLL_MASTER_ADDR", "127.0.0.1", "JCOLL_MASTER_PORT", Integer.toString(port),
                "JCOLL_TOKEN", ShmGroup.TOKEN, "JCOLL_TRANSPORT", "shm", "JCOLL_TIMEOUT", timeout));
        return env;
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
