package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Operation;
import io.jcoll.tcp.algorithm.Tuning;
import io.jcoll.testing.Case;
import io.jcoll.testing.Data;
import io.jcoll.testing.Ops;
import io.jcoll.testing.Ranks;
import io.jcoll.testing.Resources;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The soak run: 4 ranks (threads, so that one process's resources tell the
 * whole story) run a long random mix of collectives (operation, type, reduce
 * op, size, memory kind, in place or not, blocking or asynchronous), every
 * result checked against the double-precision reference; afterwards the
 * process has no more threads, file descriptors or direct memory than after
 * the first calls. {@code -Djcoll.soak.calls=N} runs it longer (default 10,000).
 */
class SoakTest {

    static final int RANKS = 4;

    /** What each open file descriptor points at: sockets show as {@code socket:[inode]}. */
    static List<String> openFiles() {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : s.toList()) {
                try {
                    out.add(Files.readSymbolicLink(fd).toString());
                } catch (IOException e) {
                    // closed meanwhile (the listing's own descriptor)
                }
            }
        } catch (IOException e) {
            out.add("unreadable: " + e);
        }
        return out;
    }

    /**
     * Descriptors open now that were not before, less those the JDK keeps for the process's life: jars the class
     * loader opened for classes first used meanwhile, and SecureRandom's /dev/random and /dev/urandom.
     */
    static List<String> leftOpen(List<String> before) {
        List<String> left = openFiles();
        left.removeAll(before);
        left.removeIf(f -> f.endsWith(".jar") || f.startsWith("/proc/") || f.equals("/dev/random")
                || f.equals("/dev/urandom"));
        return left;
    }

    /** The longest message the mix draws, in elements per rank (or per block). */
    static final int LARGEST_COUNT = 70_000;

    /**
     * Every operation, in place and not, from every kind of memory, at the mix's largest size in its widest type,
     * and the largest ReduceScatter that stays whole-message (its input one segment, which the recursive halving
     * holds in two whole-message buffers): the run-up that has every scratch stage the mix can reach allocated
     * (stages come on first use, and a pairwise all-to-all of several segments per leg fills every slot of the
     * pipeline), so that what the run adds afterwards is growth, not a first use the random warm-up missed.
     */
    static List<Case> coverage(long seed) {
        int oneSegmentOfInput = Tuning.DEFAULT.segmentBytes() / (RANKS * DataType.FLOAT64.size());
        List<Case> cases = new ArrayList<>();
        for (Data.Kind kind : Data.Kind.values()) {
            for (boolean inPlace : new boolean[] {false, true}) {
                for (Operation o : Case.COLLECTIVES) {
                    cases.add(new Case(o, DataType.FLOAT64, Case.reduces(o) ? ReduceOp.SUM : null, LARGEST_COUNT - 1,
                            inPlace, kind, cases.size() % RANKS, seed - cases.size() - 1));
                }
                cases.add(new Case(Operation.REDUCE_SCATTER, DataType.FLOAT64, ReduceOp.SUM, oneSegmentOfInput,
                        inPlace, kind, 0, seed - cases.size() - 1));
            }
        }
        return cases;
    }

    /** The same random sequence on every rank, from one seed: fresh each run, shared by the ranks. */
    static List<Case> mix(int calls, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        DataType[] types = DataType.values();
        ReduceOp[] reductions = ReduceOp.values();
        Data.Kind[] kinds = Data.Kind.values();
        List<Case> cases = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            Operation o = Case.COLLECTIVES.get(rnd.nextInt(Case.COLLECTIVES.size()));
            // mostly small messages, now and then one that takes the pipelined ring
            int count = rnd.nextInt(100) < 97 ? rnd.nextInt(0, 600) : rnd.nextInt(20_000, LARGEST_COUNT);
            DataType type = types[rnd.nextInt(types.length)];
            ReduceOp op = Case.reduces(o) ? reductions[rnd.nextInt(reductions.length)] : null;
            cases.add(new Case(o, type, op, count, rnd.nextBoolean(), kinds[rnd.nextInt(kinds.length)],
                    rnd.nextInt(RANKS), seed + i));
        }
        return cases;
    }

    @Test
    void tenThousandMixedCollectivesLeaveNothingBehind() {
        int calls = Integer.getInteger("jcoll.soak.calls", 10_000);
        long seed = new SplittableRandom().nextLong(1, 1L << 40);
        List<Case> cases = new ArrayList<>(coverage(seed));
        int warmup = cases.size() + Math.min(200, calls);
        cases.addAll(mix(calls, seed));
        int port = TcpGroup.freePort();
        Resources before = Resources.now();
        List<String> filesBefore = openFiles();
        Resources[] afterWarmup = new Resources[1];
        Resources[] afterRun = new Resources[1];
        long start = System.nanoTime();
        Ranks.all(RANKS, Duration.ofMinutes(30), rank -> {
            try (Communicator comm = TcpGroup.join(rank, RANKS, port, java.util.Map.of())) {
                for (int i = 0; i < cases.size(); i++) {
                    if (i == warmup) {
                        settleLastCall(comm, seed);
                        comm.barrier();
                        if (rank == 0) {
                            afterWarmup[0] = settled();
                        }
                        comm.barrier();
                    }
                    cases.get(i).run(Ops.of(comm, (i & 1) == 1)); // throws, naming the case, on a wrong result
                }
                settleLastCall(comm, seed);
                comm.barrier();
                if (rank == 0) {
                    afterRun[0] = settled();
                }
                comm.barrier();
            }
            return null;
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        // rank 0's store lingers 3 s after the last close (late readers of failure reports): wait it out
        List<String> left = leftOpen(filesBefore);
        for (long until = System.nanoTime() + 10_000_000_000L; System.nanoTime() < until && !left.isEmpty();
             left = leftOpen(filesBefore)) {
            sleep(100);
        }
        Resources closed = Resources.now();
        System.out.printf("soak: %d collectives x %d ranks in %.1f s (seed %d); threads %d -> %d -> %d, fds %d -> %d "
                        + "-> %d, direct bytes %d -> %d -> %d (before, after warm-up, after the run); after close: "
                        + "threads %d, fds %d%n", calls, RANKS, seconds, seed, before.threads(), afterWarmup[0].threads(),
                afterRun[0].threads(), before.fileDescriptors(), afterWarmup[0].fileDescriptors(),
                afterRun[0].fileDescriptors(), before.directBytes(), afterWarmup[0].directBytes(),
                afterRun[0].directBytes(), closed.threads(), closed.fileDescriptors());
        // no growth; fewer is fine (an earlier test's store may still be lingering when the soak starts, then leave)
        assertTrue(afterRun[0].threads() <= afterWarmup[0].threads(), "threads grew during the run: "
                + afterWarmup[0].threads() + " -> " + afterRun[0].threads());
        assertTrue(afterRun[0].fileDescriptors() <= afterWarmup[0].fileDescriptors(), "file descriptors grew: "
                + afterWarmup[0].fileDescriptors() + " -> " + afterRun[0].fileDescriptors());
        // scratch is a few segments per rank, all allocated by the coverage run-up: the run may add nothing (the
        // smallest copy of a large message it could keep is 160 KB a rank); the slack is for the test's own direct
        // buffers that a collection has not yet freed
        assertTrue(afterRun[0].directBytes() - afterWarmup[0].directBytes() <= 512L << 10,
                "direct memory grew by " + (afterRun[0].directBytes() - afterWarmup[0].directBytes()) + " bytes");
        assertEquals(List.of(), left, "descriptors left open after close");
    }

    /**
     * One tiny call, blocking and asynchronous, before each count: a call's buffers stay reachable until the next
     * call replaces them (the asynchronous worker holds its last task), so each count would otherwise include
     * whatever random case came last, up to 4.5 MB per rank.
     */
    private static void settleLastCall(Communicator comm, long seed) {
        Case tiny = new Case(Operation.ALL_REDUCE, DataType.FLOAT32, ReduceOp.SUM, 1, false, Data.Kind.DIRECT, 0, seed);
        tiny.run(Ops.of(comm, false));
        tiny.run(Ops.of(comm, true));
    }

    /** Resources once the test's own garbage (its direct input buffers) has been collected and freed. */
    private static Resources settled() {
        Resources r = Resources.now();
        for (int i = 0; i < 5; i++) {
            System.gc();
            sleep(100); // direct memory is freed by the cleaner thread after the collection
            Resources now = Resources.now();
            r = now.directBytes() < r.directBytes() ? now : r;
        }
        return r;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
