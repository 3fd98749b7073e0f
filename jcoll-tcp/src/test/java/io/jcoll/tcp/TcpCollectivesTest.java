package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.testing.Case;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole matrix of operations, types and reduce ops through the public API
 * and real TCP connections, ranks as threads; blocking and asynchronous forms
 * alternate. Small segments and thresholds make every algorithm run.
 */
class TcpCollectivesTest {

    private static final int[] COUNTS = {0, 1, 2, 13, 97, 1000};
    private static final Map<String, String> SMALL_SEGMENTS = Map.of(
            "JCOLL_TCP_SEGMENT", "1K", "JCOLL_TCP_SMALL_ALLREDUCE", "256", "JCOLL_TCP_SMALL_BROADCAST", "256");

    /** Several channels, splitting even tiny messages (64-byte slices), so every slice boundary is exercised. */
    private static final Map<String, String> THREE_CHANNELS = Map.of(
            "JCOLL_TCP_SEGMENT", "1K", "JCOLL_TCP_SMALL_ALLREDUCE", "256", "JCOLL_TCP_SMALL_BROADCAST", "256",
            "JCOLL_TCP_CHANNELS", "3", "JCOLL_TCP_CHANNEL_MIN", "64");

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 7})
    void everyCollectiveMatchesTheReference(int n) {
        matchesTheReference(n, SMALL_SEGMENTS);
    }

    @ParameterizedTest(name = "{0} ranks, 3 channels")
    @ValueSource(ints = {2, 3, 5})
    void everyCollectiveMatchesTheReferenceOverSeveralChannels(int n) {
        matchesTheReference(n, THREE_CHANNELS);
    }

    /** Calls confined to one thread (JCOLL_THREADS=one): no locks, every call still timed over TCP. */
    @ParameterizedTest(name = "{0} ranks, one thread")
    @ValueSource(ints = {2, 3})
    void everyCollectiveMatchesTheReferenceConfinedToOneThread(int n) {
        Map<String, String> settings = new java.util.HashMap<>(SMALL_SEGMENTS);
        settings.put("JCOLL_THREADS", "one");
        matchesTheReference(n, settings);
    }

    private static void matchesTheReference(int n, Map<String, String> settings) {
        List<Case> cases = Case.matrix(COUNTS, true, n);
        int port = TcpGroup.freePort();
        List<List<double[]>> results = Ranks.all(n, Duration.ofMinutes(5), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, settings)) {
                assertEquals("tcp", comm.transport().name());
                return Case.runAll(comm, cases);
            }
        });
        Case.allReducesAgree(cases, results);
    }

    /** 64 MB of float32 per rank, default tuning: the ring with large segments. Values are exact sums. */
    @Test
    void largeFloatAllReduce() {
        int n = 4;
        int count = 16 << 20; // 64 MB of float32
        SplittableRandom rnd = new SplittableRandom();
        int a = rnd.nextInt(1, 1000);
        int b = rnd.nextInt(1, 1000);
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(5), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, Map.of())) {
                ByteBuffer data = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
                allReduceMatches(comm, data, count, a, b, "");
                return null;
            }
        });
    }

    /**
     * Payloads of 16 KB and more go padded (PayloadPlacement), by the page offset of the sender's memory: direct
     * buffers at several offsets, each rank's at its own, so that the senders pad differently; AllReduce of a prime
     * count (ring blocks of about 53 KB, not divisible by the ranks) and All-to-All blocks of 20 KB, against a
     * reference in double precision.
     */
    @Test
    void longPayloadsFromMemoryAtAnyPageOffsetArriveWhole() {
        int n = 3;
        int count = 40_009;
        int block = 5_003;
        int[] offsets = {0, 16, 40, 2_047, 4_080};
        SplittableRandom rnd = new SplittableRandom();
        int a = rnd.nextInt(1, 1000);
        int b = rnd.nextInt(1, 1000);
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, Map.of())) {
                for (int k = 0; k < offsets.length; k++) {
                    int offset = offsets[(k + rank) % offsets.length];
                    allReduceMatches(comm, at(offset, count * 4), count, a, b, ", offset " + offset);
                    ByteBuffer send = at(offset, n * block * 4);
                    ByteBuffer recv = at(offsets[(k + 2 * rank) % offsets.length], n * block * 4);
                    for (int i = 0; i < n * block; i++) {
                        send.putFloat(i * 4, value(i, rank, a, b));
                    }
                    comm.allToAll(HostBuffer.of(send, DataType.FLOAT32), HostBuffer.of(recv, DataType.FLOAT32), block);
                    for (int from = 0; from < n; from++) {
                        for (int j = 0; j < block; j++) {
                            double expected = value(rank * block + j, from, a, b);
                            assertEquals(expected, recv.getFloat((from * block + j) * 4),
                                    "allToAll element " + j + " from rank " + from + ", offset " + offset);
                        }
                    }
                }
                return null;
            }
        });
    }

    /** Fills {@code data} with this rank's values, sums it in place over every rank, checks it in double precision. */
    private static void allReduceMatches(Communicator comm, ByteBuffer data, int count, int a, int b, String where) {
        for (int i = 0; i < count; i++) {
            data.putFloat(i * 4, value(i, comm.rank(), a, b));
        }
        comm.allReduce(HostBuffer.of(data, DataType.FLOAT32), ReduceOp.SUM);
        for (int i = 0; i < count; i++) {
            double expected = 0;
            for (int r = 0; r < comm.size(); r++) {
                expected += value(i, r, a, b);
            }
            int at = i;
            assertEquals(expected, data.getFloat(i * 4), () -> "allReduce element " + at + where);
        }
    }

    /** {@code bytes} of direct memory starting {@code offset} bytes past a page boundary. */
    private static ByteBuffer at(int offset, int bytes) {
        ByteBuffer page = ByteBuffer.allocateDirect(bytes + 2 * 4096 + offset).alignedSlice(4096);
        return page.position(offset).limit(offset + bytes).slice().order(ByteOrder.nativeOrder());
    }

    /** Multiples of 1/16 below 64: every sum of four is exact in float32, so any error shows. */
    private static float value(int i, int rank, int a, int b) {
        return ((i * (long) a + rank * (long) b) % 1024) / 16f;
    }

    @Test
    void sendAndRecvAcrossEveryPair() {
        int n = 3;
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, SMALL_SEGMENTS)) {
                for (int from = 0; from < n; from++) {
                    for (int to = 0; to < n; to++) {
                        if (from == to) {
                            continue;
                        }
                        int count = 1000 + 7 * from + to; // several segments, a different length per pair
                        if (rank == from) {
                            double[] v = new double[count];
                            for (int i = 0; i < count; i++) {
                                v[i] = from * 1e6 + to * 1e3 + i;
                            }
                            comm.send(HostBuffer.of(v), count, to);
                        } else if (rank == to) {
                            double[] v = new double[count];
                            comm.recvAsync(HostBuffer.of(v), count, from).await();
                            for (int i = 0; i < count; i++) {
                                assertEquals(from * 1e6 + to * 1e3 + i, v[i]);
                            }
                        }
                    }
                }
                comm.barrier();
                return null;
            }
        });
    }

    @Test
    void asynchronousCallsCompleteInIssueOrder() {
        int n = 4;
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, Map.of())) {
                List<float[]> buffers = new ArrayList<>();
                List<io.jcoll.Request> requests = new ArrayList<>();
                for (int k = 0; k < 20; k++) {
                    float[] v = new float[1 + k * 1000];
                    java.util.Arrays.fill(v, rank + k);
                    buffers.add(v);
                    requests.add(comm.allReduceAsync(HostBuffer.of(v), HostBuffer.of(v), v.length, ReduceOp.SUM));
                }
                comm.barrier(); // a blocking call queues behind the asynchronous ones
                for (int k = 0; k < 20; k++) {
                    assertTrue(requests.get(k).isDone(), "request " + k + " finished before a later barrier");
                    float expected = n * k + n * (n - 1) / 2f;
                    for (float x : buffers.get(k)) {
                        assertEquals(expected, x);
                    }
                }
                return null;
            }
        });
    }
}
