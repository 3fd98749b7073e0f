package io.jcoll.tcp.algorithm;

import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.testing.Case;
import io.jcoll.testing.Ops;
import io.jcoll.tcp.p2p.LocalFabric;
import io.jcoll.spi.Signature;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Every operation, type and reduce op, in and out of place, over every kind of
 * host memory, on 1, 2, 3, 4 and 7 ranks, straight over the algorithms and an
 * in-memory fabric. Tiny segments force every pipeline through many segments
 * and every small-message threshold both ways. Calls run whole, and in three
 * parts one after another (what the TCP transport's channels run side by side),
 * which must together do exactly what the whole call does.
 */
class AlgorithmMatrixTest {

    private static final int[] COUNTS = {0, 1, 2, 7, 13, 31, 100};

    static Stream<Arguments> setups() {
        Tuning tiny = new Tuning(64, 0, 0);            // ring and chain everywhere, 8-element segments
        Tuning smallFirst = new Tuning(256, 256, 256); // tree and recursive doubling below 256 bytes
        return Stream.of(1, 2, 3, 4, 7).flatMap(n -> Stream.of(Arguments.of(n, tiny, 1), Arguments.of(n, smallFirst, 1),
                Arguments.of(n, tiny, 3)));
    }

    @ParameterizedTest(name = "{0} ranks, {1}, {2} part(s)")
    @MethodSource("setups")
    void everyCollectiveMatchesTheReference(int n, Tuning tuning, int parts) {
        List<Case> cases = Case.matrix(COUNTS, true, n);
        LocalFabric fabric = new LocalFabric(n);
        List<List<double[]>> results = Ranks.all(n, Duration.ofMinutes(2), rank -> {
            Ops ops = direct(fabric.endpoint(rank), tuning, parts);
            return cases.stream().map(c -> c.run(ops)).toList();
        });
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            if (c.operation() == Operation.ALL_REDUCE) {
                for (int r = 1; r < n; r++) {
                    assertArrayEquals(results.get(0).get(i), results.get(r).get(i), c + ": rank " + r
                            + " differs from rank 0; every rank must get the same bits");
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} ranks, {1}, {2} part(s)")
    @MethodSource("setups")
    void rootedAndUnevenCollectivesMatchTheReference(int n, Tuning tuning, int parts) {
        List<Case> cases = Case.extendedMatrix(COUNTS, n, new java.util.SplittableRandom().nextLong(1L << 40));
        LocalFabric fabric = new LocalFabric(n);
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            Ops ops = direct(fabric.endpoint(rank), tuning, parts);
            return cases.stream().map(c -> c.run(ops)).toList();
        });
    }

    /**
     * The algorithms without a communicator: builds calls the way the validator does, and runs each as
     * {@code parts} parts in a row (elements [count * p / parts, count * (p + 1) / parts) of every block).
     */
    static Ops direct(LocalFabric.Endpoint endpoint, Tuning tuning, int parts) {
        return direct(endpoint, tuning, parts, HostLayout.rankOrder(endpoint.size()));
    }

    /** As {@link #direct(LocalFabric.Endpoint, Tuning, int)}, the ranks placed on hosts as {@code hosts} says. */
    static Ops direct(LocalFabric.Endpoint endpoint, Tuning tuning, int parts, HostLayout hosts) {
        AlgorithmContext ctx = new AlgorithmContext(endpoint, new Scratch(tuning.segmentBytes()), tuning, hosts);
        return new Ops() {
            long sequence;

            @Override public int rank() { return endpoint.rank(); }
            @Override public int size() { return endpoint.size(); }

            private void run(Operation o, HostBuffer s, HostBuffer r, long count, ReduceOp op, int root, boolean inPlace) {
                run(new Call(o, s, r, count, (s != null ? s : r).type(), op, root, sequence++, inPlace));
            }

            private void run(Call call) {
                endpoint.begin(Signature.of(call), TimeUnit.SECONDS.toNanos(20));
                for (int p = 0; p < parts; p++) {
                    Collectives.runShare(ctx, call, p, parts);
                }
            }

            @Override public void reduce(HostBuffer s, HostBuffer r, long n, ReduceOp op, int root) {
                run(Operation.REDUCE, s, r, n, op, root, s.sameMemoryAs(r));
            }

            @Override public void gather(HostBuffer s, HostBuffer r, long n, int root) {
                run(Operation.GATHER, s, r, n, null, root, r != null && s.sameMemoryAs(r.slice(rank() * n, n)));
            }

            @Override public void scatter(HostBuffer s, HostBuffer r, long n, int root) {
                run(Operation.SCATTER, s, r, n, null, root, s != null && r.sameMemoryAs(s.slice(rank() * n, n)));
            }

            @Override public void allToAllV(HostBuffer s, long[] sc, long[] so, HostBuffer r, long[] rc, long[] ro) {
                run(new Call(Operation.ALL_TO_ALL_V, s, r, 0, s.type(), null, -1, sequence++, false,
                        new io.jcoll.spi.Vectors(sc, so, rc, ro), List.of()));
            }

            @Override public void allReduce(HostBuffer s, HostBuffer r, long n, ReduceOp op) {
                run(Operation.ALL_REDUCE, s, r, n, op, -1, s.sameMemoryAs(r));
            }

            @Override public void allGather(HostBuffer s, HostBuffer r, long n) {
                run(Operation.ALL_GATHER, s, r, n, null, -1, s.sameMemoryAs(r.slice(rank() * n, n)));
            }

            @Override public void reduceScatter(HostBuffer s, HostBuffer r, long n, ReduceOp op) {
                run(Operation.REDUCE_SCATTER, s, r, n, op, -1, r.sameMemoryAs(s.slice(rank() * n, n)));
            }

            @Override public void allToAll(HostBuffer s, HostBuffer r, long n) {
                run(Operation.ALL_TO_ALL, s, r, n, null, -1, s.sameMemoryAs(r));
            }

            @Override public void broadcast(HostBuffer s, HostBuffer r, long n, int root) {
                run(Operation.BROADCAST, s, r, n, null, root, s != null && s.sameMemoryAs(r));
            }
        };
    }
}
