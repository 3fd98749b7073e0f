package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.Group;
import io.jcoll.HostBuffer;
import io.jcoll.ProcessMesh;
import io.jcoll.ReduceOp;
import io.jcoll.Request;
import io.jcoll.exceptions.CommunicatorClosedException;
import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.testing.Case;
import io.jcoll.testing.Ops;
import io.jcoll.testing.Ranks;
import io.jcoll.testing.Resources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sub-communicators, rooted and uneven collectives, and grouped calls over real TCP connections, ranks as
 * threads: results against the double-precision reference, and the ways a user gets them wrong.
 */
class ProcessGroupsTest {

    private static final int[] COUNTS = {0, 1, 2, 13, 97, 1000};
    private static final Map<String, String> SMALL_SEGMENTS = Map.of(
            "JCOLL_TCP_SEGMENT", "1K", "JCOLL_TCP_SMALL_ALLREDUCE", "256", "JCOLL_TCP_SMALL_BROADCAST", "256");

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 3, 4})
    void rootedAndUnevenCollectivesMatchTheReference(int n) {
        List<Case> cases = Case.extendedMatrix(COUNTS, n, new SplittableRandom().nextLong(1L << 40));
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, SMALL_SEGMENTS)) {
                for (int i = 0; i < cases.size(); i++) {
                    cases.get(i).run(Ops.of(comm, i % 2 == 1));
                }
                return null;
            }
        });
    }

    /** Three channels: an uneven all-to-all's blocks are cut into shares per channel, every pair's alike. */
    @Test
    void unevenAllToAllOverSeveralChannels() {
        int n = 3;
        List<Case> cases = Case.extendedMatrix(new int[] {0, 1, 13, 1000}, n, new SplittableRandom().nextLong(1L << 40))
                .stream().filter(c -> c.operation() == io.jcoll.spi.Operation.ALL_TO_ALL_V).toList();
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, Map.of("JCOLL_TCP_SEGMENT", "1K",
                    "JCOLL_TCP_CHANNELS", "3", "JCOLL_TCP_CHANNEL_MIN", "64"))) {
                cases.forEach(c -> c.run(Ops.of(comm, false)));
                return null;
            }
        });
    }

    /**
     * Ranks whose last uneven all-to-all used different numbers of channels (rank 0 and rank 1 exchange a block
     * split over three; rank 2's blocks are all small, so it uses one), after a call that used every channel on
     * every rank: closing must still find them in agreement (the goodbye carries the transport's digest, not the
     * one a channel's link saw last).
     */
    @Test
    void ranksThatUsedDifferentChannelsLastCloseInAgreement() {
        int n = 3;
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, Map.of("JCOLL_TCP_CHANNELS", "3",
                    "JCOLL_TCP_CHANNEL_MIN", "64"))) {
                comm.allReduce(HostBuffer.of(new float[4000]), ReduceOp.SUM); // every rank on every channel
                long[] counts = {1, 1, 1};
                if (rank < 2) {
                    counts[1 - rank] = 1000; // 4000 bytes between ranks 0 and 1: three shares
                }
                comm.allToAllV(HostBuffer.of(new float[2000]), counts, null, HostBuffer.of(new float[2000]), counts,
                        null);
                return null;
            }
        });
    }

    // ---- sub-communicators

    /**
     * 6 ranks split by parity, keys reversing the order; rank 5 takes no part. Each sub-communicator runs the
     * whole matrix, while its members also use the parent, from other threads at the same time.
     */
    @Test
    void splitGroupsRunEveryCollectiveConcurrentlyWithTheirParent() {
        int n = 6;
        int port = TcpGroup.freePort();
        List<Case> childCases = Case.matrix(new int[] {0, 1, 13, 97}, true, 3, new SplittableRandom().nextLong(1L << 40));
        List<Case> parentCases = Case.matrix(new int[] {1, 13}, false, n, new SplittableRandom().nextLong(1L << 40));
        List<int[]> seen = Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, SMALL_SEGMENTS)) {
                int color = rank == 5 ? Communicator.NO_COLOR : rank % 2;
                Optional<Communicator> child = comm.split(color, -rank);
                if (rank == 5) {
                    assertTrue(child.isEmpty(), "NO_COLOR gives no communicator");
                    parentCases.forEach(c -> c.run(Ops.of(comm, false)));
                    return new int[] {-1, -1};
                }
                try (Communicator sub = child.orElseThrow()) {
                    // a thread of its own: the default executor is the common pool, which on two cores runs one
                    // task at a time under JDK 25 (a thread per task under 17), so the six ranks' parent work, all
                    // in one JVM, would wait on each other
                    CompletableFuture<Void> parentWork = CompletableFuture.runAsync(
                            () -> parentCases.forEach(c -> c.run(Ops.of(comm, false))),
                            task -> new Thread(task, "parent-work-" + rank).start());
                    if (sub.size() == 3) {
                        childCases.forEach(c -> c.run(Ops.of(sub, false)));
                    }
                    long[] members = new long[sub.size()];
                    sub.allGather(HostBuffer.of(new long[] {rank}), HostBuffer.of(members), 1);
                    parentWork.join();
                    assertTrue(sub.transport().reason().contains("of its parent"), sub.transport().reason());
                    return new int[] {sub.rank(), sub.size(), (int) members[0], (int) members[members.length - 1]};
                }
            }
        });
        // evens {0, 2, 4} by descending key: 4, 2, 0; odds without 5: {1, 3}: 3, 1
        assertArrayEquals(new int[] {2, 3, 4, 0}, seen.get(0));
        assertArrayEquals(new int[] {1, 2, 3, 1}, seen.get(1));
        assertArrayEquals(new int[] {1, 3, 4, 0}, seen.get(2));
        assertArrayEquals(new int[] {0, 2, 3, 1}, seen.get(3));
        assertArrayEquals(new int[] {0, 3, 4, 0}, seen.get(4));
    }

    /** A 2 x 3 mesh: the communicators along each dimension hold the ranks that differ in that coordinate only. */
    @Test
    void meshGivesRowsAndColumns() {
        int n = 6;
        int port = TcpGroup.freePort();
        List<long[]> rows = Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, Map.of()); ProcessMesh mesh = comm.mesh(2, 3)) {
                assertArrayEquals(new int[] {rank / 3, rank % 3}, mesh.coordinates());
                long[] column = new long[2];
                long[] row = new long[3];
                mesh.along(0).allGather(HostBuffer.of(new long[] {rank}), HostBuffer.of(column), 1);
                mesh.along(1).allGather(HostBuffer.of(new long[] {rank}), HostBuffer.of(row), 1);
                assertArrayEquals(new long[] {rank % 3, rank % 3 + 3}, column);
                return row;
            }
        });
        assertArrayEquals(new long[] {0, 1, 2}, rows.get(1));
        assertArrayEquals(new long[] {3, 4, 5}, rows.get(4));
    }

    @Test
    void closingTheParentClosesItsChildren() {
        int n = 2;
        int port = TcpGroup.freePort();
        List<String> messages = Ranks.all(n, Duration.ofMinutes(1), rank -> {
            Communicator child;
            try (Communicator comm = TcpGroup.join(rank, n, port, Map.of())) {
                child = comm.split(0, rank).orElseThrow();
            }
            CommunicatorClosedException e = assertThrows(CommunicatorClosedException.class, child::barrier);
            return e.getMessage();
        });
        for (String m : messages) {
            assertTrue(m.contains("parent was closed"), m);
        }
    }

    @Test
    void badColorsAndMeshShapesAreRefusedBeforeAnythingMoves() {
        int port = TcpGroup.freePort();
        Ranks.all(2, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = TcpGroup.join(rank, 2, port, Map.of())) {
                InvalidArgumentException color = assertThrows(InvalidArgumentException.class, () -> comm.split(-7, 0));
                assertTrue(color.getMessage().contains("color -7 is negative"), color.getMessage());
                assertThrows(InvalidArgumentException.class, () -> comm.mesh(3, 1));
                assertThrows(InvalidArgumentException.class, () -> comm.mesh(0, 2));
                assertThrows(InvalidArgumentException.class, () -> comm.mesh());
                comm.barrier(); // the refusals left the ranks in step
                return null;
            }
        });
    }

    /** A rank that splits while the other runs a collective: both fail at once, each naming the other. */
    @Test
    void aSplitMeetingACollectiveFailsOnBothRanks() {
        int port = TcpGroup.freePort();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            try (Communicator comm = TcpGroup.builder(rank, 2, port, Map.of()).timeout(Duration.ofSeconds(5)).build()) {
                if (rank == 0) {
                    comm.split(0, 0);
                } else {
                    comm.allGather(HostBuffer.of(new long[3]), HostBuffer.of(new long[6]), 3);
                }
                return null;
            }
        });
        for (Ranks.Outcome<Object> o : outcomes) {
            JcollException e = assertInstanceOf(JcollException.class, o.error(), "rank " + o.rank());
            assertTrue(e.getMessage().contains("split") && e.getMessage().contains("allGather"), e.getMessage());
        }
    }

    /** Forming and closing many sub-communicators leaves no thread, socket, store key or memory behind. */
    @Test
    void aThousandSplitsLeakNothing() throws Exception {
        int n = 4;
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(4), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, Map.of())) {
                Runnable round = () -> {
                    try (Communicator sub = comm.split(rank / 2, rank).orElseThrow()) {
                        sub.allReduce(HostBuffer.of(new float[] {1}), ReduceOp.SUM);
                    }
                };
                for (int i = 0; i < 50; i++) {
                    round.run(); // warm-up: pools, caches and the JIT settle before the counts
                }
                comm.barrier();
                Resources before = rank == 0 ? Resources.now() : null;
                comm.barrier();
                for (int i = 0; i < 1000; i++) {
                    round.run();
                }
                comm.barrier();
                if (rank == 0) {
                    Resources after = settled(before);
                    assertTrue(after.threads() <= before.threads(), "threads: " + before + " -> " + after);
                    assertTrue(after.fileDescriptors() <= before.fileDescriptors() + 2, "open files: " + before + " -> " + after);
                    assertTrue(after.directBytes() <= before.directBytes() + (64 << 10), "direct memory: " + before
                            + " -> " + after);
                }
                comm.barrier();
                return null;
            }
        });
    }

    /** Waits up to 5 s for closing threads and sockets to go, then measures. */
    private static Resources settled(Resources target) throws InterruptedException {
        Resources r = Resources.now();
        for (int i = 0; i < 50 && (r.threads() > target.threads() || r.fileDescriptors() > target.fileDescriptors() + 2
                || r.directBytes() > target.directBytes() + (64 << 10)); i++) {
            Thread.sleep(100);
            System.gc();
            r = Resources.now();
        }
        return r;
    }

    // ---- groups of calls

    /**
     * Every rank sends 4 MB to the next and receives 4 MB from the previous one in one group, sends first: on
     * their own, blocking sends that large would wait forever on each other. Arrays and direct buffers both.
     */
    @ParameterizedTest(name = "direct memory: {0}")
    @ValueSource(booleans = {false, true})
    void aRingOfSendsAndReceivesInOneGroupCompletes(boolean direct) {
        int n = 3;
        int count = 1 << 20;
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, Map.of())) {
                HostBuffer out = buffer(count, direct);
                HostBuffer in = buffer(count, direct);
                float[] mine = values(rank, count);
                write(out, mine);
                float[] total = new float[count];
                for (int i = 0; i < count; i++) {
                    total[i] = rank;
                }
                HostBuffer sum = HostBuffer.of(total);
                try (Group g = comm.group()) {
                    g.send(out, count, (rank + 1) % n)
                            .allReduce(sum, sum, count, ReduceOp.SUM)
                            .recv(in, count, (rank + n - 1) % n);
                }
                assertArrayEquals(values((rank + n - 1) % n, count), read(in, count));
                assertEquals(0 + 1 + 2, total[count - 1]);
                return null;
            }
        });
    }

    /** A pipeline's step: a batch of sends to the next stage and receives from the previous, asynchronously. */
    @Test
    void anEndedGroupIsARequest() {
        int n = 4;
        int port = TcpGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = TcpGroup.join(rank, n, port, SMALL_SEGMENTS)) {
                float[][] in = new float[8][3000];
                Group g = comm.group();
                for (int m = 0; m < 8; m++) {
                    if (rank > 0) {
                        g.recv(HostBuffer.of(in[m]), 3000, rank - 1);
                    }
                    if (rank < n - 1) {
                        float[] out = new float[3000];
                        Arrays.fill(out, rank * 100 + m);
                        g.send(HostBuffer.of(out), 3000, rank + 1);
                    }
                }
                Request r = g.end();
                r.await();
                for (int m = 0; rank > 0 && m < 8; m++) {
                    assertEquals((rank - 1) * 100 + m, in[m][2999]);
                }
                return null;
            }
        });
    }

    @Test
    void callsOutsideAnOpenGroupAreRefusedAndAGroupEndedOnOneRankFailsNamingTheOther() {
        int port = TcpGroup.freePort();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            try (Communicator comm = TcpGroup.builder(rank, 2, port, Map.of()).timeout(Duration.ofSeconds(2)).build()) {
                Group g = comm.group();
                g.allReduce(HostBuffer.of(new float[4]), HostBuffer.of(new float[4]), 4, ReduceOp.SUM);
                InvalidArgumentException refused = assertThrows(InvalidArgumentException.class, comm::barrier);
                assertTrue(refused.getMessage().contains("a group is open"), refused.getMessage());
                assertThrows(InvalidArgumentException.class, () -> g.send(HostBuffer.of(new float[1]), 2, 1 - rank));
                assertEquals(1, g.size(), "the refused call left the group as it was");
                if (rank == 0) {
                    g.close(); // rank 1 never ends its group
                }
                return null;
            }
        });
        // rank 1 leaves with its group unended: rank 0's group fails naming it, at once or at the timeout
        JcollException e = assertInstanceOf(JcollException.class, outcomes.get(0).error());
        assertEquals(1, e.peer(), e.getMessage());
    }

    /**
     * A group that waits on itself (a receive no rank sends) fails naming the rank it waited on: as soon as that
     * rank leaves, at the timeout at the latest.
     */
    @Test
    void aGroupThatCannotCompleteFailsNamingThePeer() {
        int port = TcpGroup.freePort();
        long start = System.nanoTime();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            try (Communicator comm = TcpGroup.builder(rank, 2, port, Map.of()).timeout(Duration.ofSeconds(2)).build()) {
                try (Group g = comm.group()) {
                    g.send(HostBuffer.of(new float[8]), 8, 1 - rank).recv(HostBuffer.of(new float[8]), 8, 1 - rank);
                    if (rank == 1) {
                        g.recv(HostBuffer.of(new float[8]), 8, 0); // rank 0 sends only one
                    }
                }
                return null;
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        JcollException e = assertInstanceOf(JcollException.class, outcomes.get(1).error());
        assertEquals(0, e.peer(), e.getMessage());
        assertTrue(e.getMessage().contains("rank 0"), e.getMessage());
        assertTrue(seconds < 2 + 3, "gave up by the timeout, took " + seconds + " s");
    }

    // ---- abort

    /** Rank 1 waits in an allReduce rank 0 never joins; another thread of rank 1 aborts: both ranks stop at once. */
    @Test
    void abortFromAnotherThreadStopsEveryRankAtOnce() {
        int port = TcpGroup.freePort();
        long start = System.nanoTime();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            try (Communicator comm = TcpGroup.builder(rank, 2, port, Map.of()).timeout(Duration.ofSeconds(20)).build()) {
                Communicator child = comm.split(0, rank).orElseThrow();
                if (rank == 1) {
                    CompletableFuture.runAsync(() -> {
                        sleep(300);
                        comm.abort();
                        comm.abort(); // more than once is harmless
                    });
                } else {
                    sleep(1000); // late: rank 1 waits for it in the allReduce when it aborts
                }
                comm.allReduce(HostBuffer.of(new float[1 << 16]), ReduceOp.SUM);
                return child;
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        for (Ranks.Outcome<Object> o : outcomes) {
            JcollException e = assertInstanceOf(JcollException.class, o.error(), "rank " + o.rank());
            assertTrue(e.getMessage().contains("comm.abort() was called on rank 1"), e.getMessage());
        }
        assertTrue(seconds < 5, "stopped long before the 20 s timeout, took " + seconds + " s");
    }

    @Test
    void abortRacingCloseLeavesNothingRunning() {
        int port = TcpGroup.freePort();
        Ranks.all(2, Duration.ofSeconds(60), rank -> {
            for (int round = 0; round < 20; round++) {
                Communicator comm = TcpGroup.builder(rank, 2, port, Map.of()).timeout(Duration.ofSeconds(5)).build();
                Communicator sub = comm.split(0, rank).orElseThrow();
                CompletableFuture<Void> aborting = CompletableFuture.runAsync(comm::abort);
                try {
                    comm.close();
                } catch (JcollException e) {
                    // the peer's abort may reach this rank's goodbye: a failure, never a hang
                }
                aborting.join();
                assertThrows(CommunicatorClosedException.class, sub::barrier);
            }
            return null;
        });
    }

    // ---- disagreements that would otherwise pass silently

    /** One rank of three names another root: nobody may end with different data and no error. */
    @ParameterizedTest(name = "{0} floats")
    @ValueSource(ints = {100, 1 << 20})
    void aBroadcastWhoseRanksNameDifferentRootsFailsOnEveryRank(int count) {
        int n = 3;
        int port = TcpGroup.freePort();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(n, Duration.ofSeconds(60), rank -> {
            Communicator comm = TcpGroup.builder(rank, n, port, Map.of()).timeout(Duration.ofSeconds(5)).build();
            try {
                float[] data = new float[count];
                Arrays.fill(data, rank + 1);
                try {
                    comm.broadcast(HostBuffer.of(data), rank == 1 ? 1 : 0);
                } catch (JcollException e) {
                    return "failed in the call";
                }
                try {
                    comm.allReduce(HostBuffer.of(new float[4]), ReduceOp.SUM); // the next call...
                } catch (JcollException e) {
                    return "failed in the next call";
                }
            } finally {
                try {
                    comm.close(); // ...or, at the latest, closing
                } catch (JcollException e) {
                    return "failed in close";
                }
            }
            return null;
        });
        for (Ranks.Outcome<Object> o : outcomes) {
            assertTrue(o.error() == null && o.value() != null, "rank " + o.rank() + " ended without an error: " + o);
        }
    }

    /**
     * Rank 0 sends rank 1 five elements where rank 1 expects three: both fail, naming each other. Rank 0 expects
     * nothing from rank 1, so its call completes and only its close can report the failure. With
     * {@code lingerMillis}, rank 0 closes only after rank 1's abort has closed a socket holding rank 0's unread
     * data, which resets it: rank 0's goodbye then fails to write, and the abort already queued must still be read.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 300})
    void unevenCountsThatDisagreeFailOnBothRanks(int lingerMillis) {
        int port = TcpGroup.freePort();
        List<Ranks.Outcome<Object>> outcomes = Ranks.outcomes(2, Duration.ofSeconds(30), rank -> {
            try (Communicator comm = TcpGroup.builder(rank, 2, port, Map.of()).timeout(Duration.ofSeconds(5)).build()) {
                float[] in = new float[16];
                float[] out = new float[16];
                Arrays.fill(out, -1);
                long[] sendCounts = rank == 0 ? new long[] {1, 5} : new long[] {0, 2};
                long[] recvCounts = rank == 0 ? new long[] {1, 0} : new long[] {3, 2};
                try {
                    comm.allToAllV(HostBuffer.of(in), sendCounts, null, HostBuffer.of(out), recvCounts, null);
                } finally {
                    if (rank == 1) {
                        assertEquals(-1, out[0], "nothing from the disagreeing rank was written");
                    }
                }
                if (rank == 0) {
                    Thread.sleep(lingerMillis);
                }
                return null;
            }
        });
        for (Ranks.Outcome<Object> o : outcomes) {
            JcollException e = assertInstanceOf(JcollException.class, o.error(), "rank " + o.rank());
            assertTrue(e.getMessage().contains("rank 0 sends this rank 5 elements but this rank expects 3"),
                    "rank " + o.rank() + ": " + e.getMessage());
        }
    }

    @Test
    void badUnevenLayoutsAreRefusedBeforeAnythingMoves() {
        int port = TcpGroup.freePort();
        Ranks.all(2, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = TcpGroup.join(rank, 2, port, Map.of())) {
                HostBuffer in = HostBuffer.of(new float[8]);
                HostBuffer out = HostBuffer.of(new float[8]);
                String[] refusals = {
                    refusal(() -> comm.allToAllV(in, new long[] {1}, null, out, new long[] {1, 1}, null)),
                    refusal(() -> comm.allToAllV(in, new long[] {1, -2}, null, out, new long[] {1, 1}, null)),
                    refusal(() -> comm.allToAllV(in, new long[] {1, 1}, new long[] {0, 8}, out, new long[] {1, 1}, null)),
                    refusal(() -> comm.allToAllV(in, new long[] {4, 4}, null, out, new long[] {4, 4},
                            new long[] {0, 2})),
                    refusal(() -> comm.allToAllV(in, new long[] {1, 1}, new long[] {0, Long.MAX_VALUE - 1}, out,
                            new long[] {1, 1}, null)),
                    refusal(() -> comm.allToAllV(in, new long[] {1, 1}, null, in, new long[] {1, 1}, null)),
                    refusal(() -> comm.allToAllV(in, new long[] {2, 2}, null, out, new long[] {1, 1}, null)),
                    refusal(() -> comm.reduce(in, null, 8, ReduceOp.SUM, 2)),
                    refusal(() -> comm.gather(in, rank == 0 ? HostBuffer.of(new float[15]) : null, 9, 0)),
                    refusal(() -> comm.scatter(rank == 1 ? HostBuffer.of(new float[3]) : null, out, 9, 1)),
                };
                String[] expected = {"has 1 entries but the communicator has 2", "sendCounts[1] = -2 is negative",
                    "send block for rank 1 is elements [8, 9)", "recv blocks from ranks 0 and 1 overlap",
                    "overflows a long", "cannot run in place", "sends itself 2 elements but receives 1",
                    "root 2 is out of range", "are needed", "are needed"};
                for (int i = 0; i < refusals.length; i++) {
                    if (expected[i] != null) {
                        assertTrue(refusals[i] != null && refusals[i].contains(expected[i]), i + ": " + refusals[i]);
                    }
                }
                return null;
            }
        });
    }

    private static String refusal(Runnable call) {
        try {
            call.run();
            return null;
        } catch (InvalidArgumentException e) {
            return e.getMessage();
        }
    }

    // ---- helpers

    private static HostBuffer buffer(int count, boolean direct) {
        return direct ? HostBuffer.of(java.nio.ByteBuffer.allocateDirect(count * 4), DataType.FLOAT32)
                : HostBuffer.of(new float[count]);
    }

    private static void write(HostBuffer b, float[] values) {
        java.nio.ByteBuffer room = b.writable(0, values.length * 4, java.nio.ByteBuffer.allocate(values.length * 4)
                .order(java.nio.ByteOrder.nativeOrder()));
        room.duplicate().order(java.nio.ByteOrder.nativeOrder()).asFloatBuffer().put(values);
        b.commit(0, room);
    }

    private static float[] values(int rank, int count) {
        float[] v = new float[count];
        SplittableRandom random = new SplittableRandom(rank);
        for (int i = 0; i < count; i++) {
            v[i] = (float) random.nextDouble();
        }
        return v;
    }

    private static float[] read(HostBuffer b, int count) {
        java.nio.ByteBuffer bytes = b.readable(0, count * 4, java.nio.ByteBuffer.allocate(count * 4)
                .order(java.nio.ByteOrder.nativeOrder()));
        float[] out = new float[count];
        bytes.duplicate().order(java.nio.ByteOrder.nativeOrder()).asFloatBuffer().get(out);
        return out;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
