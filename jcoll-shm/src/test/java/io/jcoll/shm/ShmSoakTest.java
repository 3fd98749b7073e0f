package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Operation;
import io.jcoll.testing.Case;
import io.jcoll.testing.Data;
import io.jcoll.testing.Ops;
import io.jcoll.testing.Ranks;
import io.jcoll.testing.Resources;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared-memory transport's soak run: thread ranks run a long random mix of every collective, rooted and
 * uneven ones included (type, reduce op, size, memory kind, root, in place or not, blocking or asynchronous), with
 * the paths' thresholds set low so that consecutive calls hop between boxes, pipelined slots, single copy (direct
 * memory, JDK 22 on), the in-place all-to-all's chunked exchange and the all-reduce that reads its peers, each
 * leaving state the next path finds (unsettled boxes, slots freed many phases ago, published addresses). Every
 * result is checked against the double-precision reference; afterwards no thread or descriptor has been added and
 * no segment stays open. {@code -Djcoll.shm.soak.calls=N} runs it longer (default 3,000 a run).
 */
class ShmSoakTest {

    /** Small enough for a mix to cross every threshold below many times. */
    static final Map<String, String> LOW_THRESHOLDS = Map.of("JCOLL_SHM_SLOT", "8K",
            "JCOLL_SHM_SINGLE_COPY_MIN", "24K", "JCOLL_SHM_SINGLE_COPY_GATHER_MIN", "24K",
            "JCOLL_SHM_SINGLE_COPY_BROADCAST_MIN", "24K", "JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN", "24K",
            "JCOLL_SHM_SINGLE_COPY_REDUCE_MIN", "24K", "JCOLL_TCP_SEGMENT", "4K");

    /** The most elements a rank sends (or sends each peer) in the mix. */
    private static final int LARGEST_COUNT = 12_000;

    /** Elements per rank (or per block): up to 96 KB of the widest type, from nothing. */
    private static int count(SplittableRandom rnd) {
        int band = rnd.nextInt(10);
        return band < 4 ? rnd.nextInt(0, 600) // boxes, mostly
                : band < 8 ? rnd.nextInt(600, 6_000) // the slots, a few chunks, or single copy
                : rnd.nextInt(6_000, LARGEST_COUNT); // several chunks, single copy from every rank
    }

    /**
     * Every operation at the mix's largest size in direct memory, in place and not: the run-up that has every rank's
     * crew started and every scratch buffer made (each comes on first use), so that what the run adds afterwards is
     * growth, not a first use.
     */
    private static List<Case> coverage(int n, long seed) {
        List<Case> cases = new ArrayList<>();
        for (Operation o : operations()) {
            for (boolean inPlace : o == Operation.ALL_TO_ALL_V ? new boolean[] {false} : new boolean[] {false, true}) {
                cases.add(new Case(o, DataType.FLOAT64, Case.reduces(o) ? ReduceOp.SUM : null, LARGEST_COUNT - 1,
                        inPlace, Data.Kind.DIRECT, cases.size() % n, seed - cases.size() - 1));
            }
        }
        return cases;
    }

    private static List<Operation> operations() {
        List<Operation> ops = new ArrayList<>(Case.COLLECTIVES);
        ops.addAll(Case.ROOTED_AND_UNEVEN);
        return ops;
    }

    /** What every rank runs, alike from one seed: the run-up over every operation, then {@code calls} of the mix. */
    static List<Case> cases(int n, int calls, long seed) {
        List<Case> cases = new ArrayList<>(coverage(n, seed));
        cases.addAll(mix(n, calls, seed));
        return cases;
    }

    /** The same random sequence on every rank, from one seed. */
    private static List<Case> mix(int n, int calls, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Operation> ops = operations();
        DataType[] types = DataType.values();
        ReduceOp[] reductions = ReduceOp.values();
        Data.Kind[] kinds = Data.Kind.values();
        List<Case> cases = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            Operation o = ops.get(rnd.nextInt(ops.size()));
            DataType type = types[rnd.nextInt(types.length)];
            ReduceOp op = Case.reduces(o) ? reductions[rnd.nextInt(reductions.length)] : null;
            // direct memory twice as often as the rest: only it takes single copy
            Data.Kind kind = rnd.nextInt(4) < 2 ? Data.Kind.DIRECT : kinds[rnd.nextInt(kinds.length)];
            boolean inPlace = o != Operation.ALL_TO_ALL_V && rnd.nextBoolean();
            cases.add(new Case(o, type, op, count(rnd), inPlace, kind, rnd.nextInt(n), seed + i));
        }
        return cases;
    }

    /**
     * Three ranks, and two that each copy alone (where an in-place broadcast's root is read too); on a host with the
     * cores for more, {@code -Djcoll.shm.soak.layouts=8x1,4x3} runs those instead (ranks x crew).
     */
    static Stream<Arguments> layouts() {
        String layouts = System.getProperty("jcoll.shm.soak.layouts", "3x1,3x2,2x1");
        return Arrays.stream(layouts.split(",")).map(String::trim).map(layout -> {
            String[] parts = layout.split("x");
            if (parts.length != 2) {
                throw new IllegalArgumentException("jcoll.shm.soak.layouts: '" + layout + "' is not RANKSxCREW");
            }
            return Arguments.of(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        });
    }

    @ParameterizedTest(name = "{0} ranks, crews of {1}")
    @MethodSource("layouts")
    void aLongMixOverEveryPathIsRightAndLeavesNothingBehind(int n, int threads) throws IOException {
        int calls = Integer.getInteger("jcoll.shm.soak.calls", 3_000);
        long seed = new SplittableRandom().nextLong(1, 1L << 40);
        List<Case> cases = cases(n, calls, seed);
        // the counts taken after the run-up and some of the mix, before the last call
        int warmup = cases.size() - calls + Math.min(200, calls / 2);
        Map<String, String> settings = new java.util.HashMap<>(LOW_THRESHOLDS);
        settings.put("JCOLL_SHM_THREADS", Integer.toString(threads));
        int port = ShmGroup.freePort();
        Map<Path, Path> segmentsBefore = SegmentFiles.descriptors();
        int[] threadsAfterWarmup = new int[1];
        int[] threadsAfterRun = new int[1];
        long[] fdsAfterWarmup = new long[1];
        long[] fdsAfterRun = new long[1];
        long start = System.nanoTime();
        // each rank's all-reduce outputs as hashes of their bits, to compare across ranks: kept whole, a long run's
        // outputs would fill the heap
        List<long[]> hashes = Ranks.all(n, Duration.ofMinutes(10), rank -> {
            long[] out = new long[cases.size()];
            try (Communicator comm = ShmGroup.join(rank, n, port, settings)) {
                for (int i = 0; i < cases.size(); i++) {
                    if (i == warmup || i == cases.size() - 1) {
                        comm.barrier();
                        if (rank == 0) {
                            (i == warmup ? threadsAfterWarmup : threadsAfterRun)[0] = Thread.activeCount();
                            (i == warmup ? fdsAfterWarmup : fdsAfterRun)[0] = Resources.now().fileDescriptors();
                        }
                        comm.barrier();
                    }
                    // throws, naming the case, on a wrong result
                    double[] result = cases.get(i).run(Ops.of(comm, (i & 1) == 1));
                    out[i] = cases.get(i).operation() == Operation.ALL_REDUCE ? bitsHash(result) : 0;
                }
            }
            return out;
        });
        for (int r = 1; r < n; r++) {
            for (int i = 0; i < cases.size(); i++) {
                if (hashes.get(r)[i] != hashes.get(0)[i]) {
                    throw new AssertionError(cases.get(i) + ": rank " + r + "'s result differs from rank 0's in its "
                            + "bits (seed " + seed + ")");
                }
            }
        }
        System.out.printf("shm soak: %d mixed calls x %d ranks, crews of %d, in %.1f s (seed %d); threads %d -> %d, "
                        + "descriptors %d -> %d (after warm-up, at the end)%n", calls, n, threads,
                (System.nanoTime() - start) / 1e9, seed, threadsAfterWarmup[0], threadsAfterRun[0],
                fdsAfterWarmup[0], fdsAfterRun[0]);
        assertTrue(threadsAfterRun[0] <= threadsAfterWarmup[0], "threads grew during the run: "
                + threadsAfterWarmup[0] + " -> " + threadsAfterRun[0] + " (seed " + seed + ")");
        assertTrue(fdsAfterRun[0] <= fdsAfterWarmup[0], "descriptors grew during the run: " + fdsAfterWarmup[0]
                + " -> " + fdsAfterRun[0] + " (seed " + seed + ")");
        Map<Path, Path> left = SegmentFiles.descriptors();
        left.keySet().removeAll(segmentsBefore.keySet());
        assertTrue(left.isEmpty(), "a closed communicator left its segment open: " + left + " (seed " + seed + ")");
    }

    static long bitsHash(double[] values) {
        long h = 1;
        for (double v : values) {
            h = 31 * h + Double.doubleToRawLongBits(v);
        }
        return h;
    }
}
