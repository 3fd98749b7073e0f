package io.jcoll.tcp.algorithm;

import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.Signature;
import io.jcoll.tcp.p2p.LocalFabric;
import io.jcoll.testing.Case;
import io.jcoll.testing.Ops;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ranks placed on hosts in every way a launcher can place them: rings in host order, AllReduce in two levels. Every
 * collective is checked against its reference for each placement, and the bytes that cross between hosts are
 * counted on an in-memory fabric: what host order and two levels are for.
 */
class HostLayoutTest {

    private static final int[] COUNTS = {0, 1, 2, 7, 13, 31, 100};

    /** Host of each rank: contiguous, interleaved, uneven, several shapes. */
    static Stream<Arguments> placements() {
        int[][] hosts = {
            {0, 1, 0, 1},             // 2 x 2 interleaved
            {0, 0, 1, 1, 2, 2},       // 3 x 2 contiguous
            {0, 1, 2, 0, 1, 2},       // 3 x 2 interleaved
            {1, 0, 1, 0, 1, 0},       // 2 x 3 interleaved, rank 0 not on the first host id
            {0, 1, 1, 0, 2, 2, 0},    // 3 hosts of 3, 2 and 2: host order, no hierarchy
            {0, 1, 2, 3, 0, 1, 2, 3}, // 4 x 2 interleaved
        };
        Tuning tiny = new Tuning(64, 0, 0);
        Tuning smallFirst = new Tuning(256, 256, 256);
        return Arrays.stream(hosts).flatMap(h -> Stream.of(Arguments.of(h, true, tiny, 1), Arguments.of(h, true, tiny, 3),
                Arguments.of(h, false, tiny, 1), Arguments.of(h, true, smallFirst, 1)));
    }

    @ParameterizedTest(name = "hosts {0}, hierarchy {1}, {2}, {3} part(s)")
    @MethodSource("placements")
    void everyCollectiveMatchesTheReference(int[] hosts, boolean hierarchy, Tuning tuning, int parts) {
        int n = hosts.length;
        HostLayout layout = HostLayout.of(Arrays.stream(hosts).mapToLong(h -> 1000L + h).toArray(), hierarchy);
        List<Case> cases = Case.matrix(COUNTS, true, n);
        List<Case> rooted = Case.extendedMatrix(COUNTS, n, new java.util.SplittableRandom().nextLong(1L << 40));
        LocalFabric fabric = new LocalFabric(n);
        List<List<double[]>> results = Ranks.all(n, Duration.ofMinutes(2), rank -> {
            Ops ops = AlgorithmMatrixTest.direct(fabric.endpoint(rank), tuning, parts, layout);
            rooted.forEach(c -> c.run(ops));
            return cases.stream().map(c -> c.run(ops)).toList();
        });
        for (int i = 0; i < cases.size(); i++) {
            if (cases.get(i).operation() == Operation.ALL_REDUCE) {
                for (int r = 1; r < n; r++) {
                    assertArrayEquals(results.get(0).get(i), results.get(r).get(i), cases.get(i) + ": rank " + r
                            + " differs from rank 0; every rank must get the same bits");
                }
            }
        }
    }

    @Test
    void layoutOfInterleavedHosts() {
        HostLayout l = HostLayout.of(new long[] {7, 9, 7, 9, 7, 9}, true);
        assertEquals(2, l.hosts());
        assertEquals(3, l.ranksPerHost());
        assertTrue(l.hierarchical());
        assertFalse(l.ringFollowsRanks());
        assertArrayEquals(new int[] {0, 2, 4, 1, 3, 5}, l.ringOrder());
        assertEquals(3, l.ringPosition(1));
        assertArrayEquals(new int[] {1, 3, 5}, l.ranksBeside(3));
        assertArrayEquals(new int[] {2, 3}, l.ranksAcross(3));
        assertTrue(l.describe().startsWith("2 hosts x 3 ranks: rings in host order [0, 2, 4, 1, 3, 5]"), l.describe());
        assertTrue(l.describe().contains("two levels"), l.describe());

        assertFalse(HostLayout.of(new long[] {7, 9, 7, 9}, false).hierarchical(), "JCOLL_TCP_HIERARCHY=0");
        assertFalse(HostLayout.of(new long[] {7, 7, 9}, true).hierarchical(), "2 and 1 ranks: no shard for each");
        assertFalse(HostLayout.of(new long[] {7, 8, 9}, true).hierarchical(), "one rank per host: nothing below");
        assertFalse(HostLayout.of(new long[] {7, 7, 7}, true).hierarchical(), "one host: nothing above");
        assertTrue(HostLayout.of(new long[] {7, 7, 9, 9}, true).ringFollowsRanks());
        assertTrue(HostLayout.of(new long[] {7, 7, 9}, true).describe().startsWith("2 hosts with 2/1 ranks"));
        assertThrows(IllegalArgumentException.class, () -> new AlgorithmContext(new LocalFabric(3).endpoint(0),
                new Scratch(64), Tuning.DEFAULT, HostLayout.rankOrder(4)));
    }

    /**
     * The bytes each host sends to other hosts in one large AllReduce of M bytes, 2 hosts x 2 ranks placed
     * {0,2} / {1,3}: a ring in rank order crosses at every step (2 ranks x 2(n-1)/n M = 3M per host); in host
     * order once each way (1.5M); in two levels each host's link carries 2(h-1)/h M = M.
     */
    @Test
    void hostOrderAndTwoLevelsCutWhatCrossesBetweenHosts() {
        int[] hosts = {0, 1, 0, 1};
        long[] ids = {0, 1, 0, 1};
        int count = 4096; // floats: M = 16 KB, a ring of even blocks
        long m = count * 4L;
        assertEquals(3 * m, crossing(Operation.ALL_REDUCE, hosts, HostLayout.rankOrder(4), count));
        assertEquals(3 * m / 2, crossing(Operation.ALL_REDUCE, hosts, HostLayout.of(ids, false), count));
        assertEquals(m, crossing(Operation.ALL_REDUCE, hosts, HostLayout.of(ids, true), count));
        // all-gather of M-byte blocks: one crossing edge per host carries n-1 blocks in host order, two in rank order
        assertEquals(6 * m, crossing(Operation.ALL_GATHER, hosts, HostLayout.rankOrder(4), count));
        assertEquals(3 * m, crossing(Operation.ALL_GATHER, hosts, HostLayout.of(ids, true), count));
        assertEquals(6 * m, crossing(Operation.REDUCE_SCATTER, hosts, HostLayout.rankOrder(4), count));
        assertEquals(3 * m, crossing(Operation.REDUCE_SCATTER, hosts, HostLayout.of(ids, true), count));
        // the chain from rank 0 leaves its host once in host order (0, 2 | 1, 3), twice in rank order
        assertEquals(2 * m, crossing(Operation.BROADCAST, hosts, HostLayout.rankOrder(4), count));
        assertEquals(m, crossing(Operation.BROADCAST, hosts, HostLayout.of(ids, true), count));
    }

    /** Bytes host 0's ranks send to ranks of other hosts in one call of {@code op} (large-message algorithms). */
    private static long crossing(Operation op, int[] hosts, HostLayout layout, int count) {
        int n = hosts.length;
        Tuning large = new Tuning(1024, 0, 0);
        LocalFabric fabric = new LocalFabric(n);
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            LocalFabric.Endpoint e = fabric.endpoint(rank);
            AlgorithmContext ctx = new AlgorithmContext(e, new Scratch(large.segmentBytes()), large, layout);
            int blocks = op == Operation.ALL_REDUCE || op == Operation.BROADCAST ? 1 : n;
            HostBuffer in = HostBuffer.of(new float[op == Operation.ALL_GATHER ? count : count * blocks]);
            HostBuffer out = HostBuffer.of(new float[op == Operation.REDUCE_SCATTER ? count : count * blocks]);
            ReduceOp reduce = op == Operation.ALL_REDUCE || op == Operation.REDUCE_SCATTER ? ReduceOp.SUM : null;
            int root = op == Operation.BROADCAST ? 0 : -1;
            Call call = new Call(op, in, out, count, in.type(), reduce, root, 0, false);
            e.begin(Signature.of(call), TimeUnit.SECONDS.toNanos(20));
            Collectives.run(ctx, call);
            return null;
        });
        long bytes = 0;
        for (int from = 0; from < n; from++) {
            for (int to = 0; to < n; to++) {
                if (hosts[from] == 0 && hosts[to] != 0) {
                    bytes += fabric.bytesSent(from, to);
                }
            }
        }
        return bytes;
    }
}
