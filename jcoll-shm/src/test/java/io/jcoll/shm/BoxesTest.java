package io.jcoll.shm;

import io.jcoll.Buffer;
import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Small collectives through the boxes ({@link Boxes}), mixed with larger ones through the slots: a box is written
 * again {@link Layout#BOXES} box calls later, once the peers' own boxes say they are done with it (no counter of its
 * own frees it), so these tests run many ranks on few cores (a rank descheduled between two calls is what would
 * expose a box rewritten under a reader) and check every result exactly; and that a disagreement in a box call
 * fails every rank (ranks that disagree about a size, and so take different paths: ShmSetupTest).
 */
class BoxesTest {

    private static final int ROUNDS = 4000;
    /** The kinds of call {@link #check} runs: 0-7, and the barrier. */
    private static final int OPS = 9;

    /**
     * A box's copy gives the very bytes of the source at every length around its word-by-word limit (0 to two words
     * past it), from and to direct and heap buffers, at odd offsets, whatever byte order each buffer reads in, and
     * leaves the bytes around the destination alone.
     */
    @Test
    void copiesAreByteExactAtEveryLengthOffsetAndOrder() {
        SplittableRandom random = new SplittableRandom(19);
        ByteOrder[] orders = {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN};
        for (int bytes = 0; bytes <= Boxes.WORD_COPY_BYTES + 16; bytes++) {
            for (int kinds = 0; kinds < 4; kinds++) {
                int srcAt = random.nextInt(9);
                int dstAt = random.nextInt(9);
                ByteBuffer src = buffer(kinds % 2 == 0, srcAt + bytes + 8).order(orders[random.nextInt(2)]);
                ByteBuffer dst = buffer(kinds / 2 == 0, dstAt + bytes + 8).order(orders[random.nextInt(2)]);
                byte[] in = new byte[src.capacity()];
                byte[] before = new byte[dst.capacity()];
                random.nextBytes(in);
                random.nextBytes(before);
                src.put(0, in);
                dst.put(0, before);
                Boxes.copy(dst, dstAt, src, srcAt, bytes);
                byte[] out = new byte[dst.capacity()];
                dst.get(0, out);
                for (int k = 0; k < out.length; k++) {
                    byte expected = k >= dstAt && k < dstAt + bytes ? in[srcAt + k - dstAt] : before[k];
                    assertEquals(expected, out[k], "byte " + k + " of a " + bytes + "-byte copy from " + srcAt + " to "
                            + dstAt + " (" + (src.isDirect() ? "direct" : "heap") + " " + src.order() + " to "
                            + (dst.isDirect() ? "direct" : "heap") + " " + dst.order() + ")");
                }
            }
        }
    }

    private static ByteBuffer buffer(boolean direct, int capacity) {
        return direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
    }

    /**
     * Five thread ranks run the same random sequence of every collective with sizes on both sides of the boxes'
     * capacity (so that box calls and slot calls interleave), on int32 data whose sums are exact, and check each
     * output against the sum or copy computed here from every rank's input.
     */
    @Test
    void mixedSmallAndLargeCallsAllMatchTheReference() {
        int n = 5;
        long seed = new SplittableRandom().nextLong();
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_SHM_SLOT", "8K"))) {
                SplittableRandom plan = new SplittableRandom(seed); // the same on every rank
                for (int round = 0; round < ROUNDS; round++) {
                    int op = plan.nextInt(OPS);
                    // up to 1400 int32: an all-reduce of more than 1024 elements (4 KB) goes through the slots
                    int count = plan.nextInt(1, op == 3 || op == 4 || op == 7 ? 1400 / n : 1400);
                    int root = plan.nextInt(n);
                    long salt = plan.nextLong();
                    boolean direct = plan.nextBoolean();
                    check(comm, op, count, root, salt, direct, round);
                }
                return null;
            }
        });
    }

    private static void check(Communicator comm, int op, int count, int root, long salt, boolean direct, int round) {
        int n = comm.size();
        int me = comm.rank();
        String what = "round " + round + ", op " + op + ", count " + count + ", rank " + me;
        switch (op) {
            case 0 -> { // allReduce
                int[] out = run(direct, input(me, count, salt), count, (s, r) -> comm.allReduce(s, r, count, ReduceOp.SUM));
                assertArrayEquals(sums(n, count, salt, 0), out, what);
            }
            case 1 -> { // allGather
                int[] out = run(direct, input(me, count, salt), count * n, (s, r) -> comm.allGather(s, r, count));
                for (int j = 0; j < n; j++) {
                    assertArrayEquals(input(j, count, salt), java.util.Arrays.copyOfRange(out, j * count, (j + 1) * count), what);
                }
            }
            case 2 -> { // broadcast
                int[] out = run(direct, me == root ? input(me, count, salt) : new int[count], count,
                        (s, r) -> comm.broadcast(s, r, count, root));
                assertArrayEquals(input(root, count, salt), out, what);
            }
            case 3 -> { // reduceScatter
                int[] out = run(direct, input(me, count * n, salt), count,
                        (s, r) -> comm.reduceScatter(s, r, count, ReduceOp.SUM));
                assertArrayEquals(sums(n, count, salt, me * count), out, what);
            }
            case 4 -> { // allToAll
                int[] out = run(direct, input(me, count * n, salt), count * n, (s, r) -> comm.allToAll(s, r, count));
                for (int j = 0; j < n; j++) {
                    int[] theirs = input(j, count * n, salt);
                    assertArrayEquals(java.util.Arrays.copyOfRange(theirs, me * count, (me + 1) * count),
                            java.util.Arrays.copyOfRange(out, j * count, (j + 1) * count), what);
                }
            }
            case 5 -> { // reduce to a root
                int[] out = run(direct, input(me, count, salt), count,
                        (s, r) -> comm.reduce(s, r, count, ReduceOp.SUM, root));
                if (me == root) {
                    assertArrayEquals(sums(n, count, salt, 0), out, what);
                }
            }
            case 6 -> { // gather to a root
                int[] out = run(direct, input(me, count, salt), me == root ? count * n : 0,
                        (s, r) -> comm.gather(s, r, count, root));
                if (me == root) {
                    for (int j = 0; j < n; j++) {
                        assertArrayEquals(input(j, count, salt), java.util.Arrays.copyOfRange(out, j * count, (j + 1) * count), what);
                    }
                }
            }
            case 7 -> { // scatter from a root
                int[] out = run(direct, me == root ? input(me, count * n, salt) : new int[0], count,
                        (s, r) -> comm.scatter(s, r, count, root));
                int[] all = input(root, count * n, salt);
                assertArrayEquals(java.util.Arrays.copyOfRange(all, me * count, (me + 1) * count), out, what);
            }
            default -> comm.barrier();
        }
    }

    /**
     * Runs of calls in which some ranks wait for no one (a broadcast's or scatter's root, a reduce's or gather's
     * other ranks: they post and return, and read their peers' boxes at a later box call): four ranks on few cores,
     * and two, 50 such calls in a row from one root, then another root and kind, every output checked. A rank that
     * ran ahead and wrote a box again before every peer had read it would show here as a wrong output.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4}) // two ranks read what they left unread in batches (Boxes.TWO_RANK_BATCH)
    void runsOfCallsThatWaitForNoOneMatchTheReference(int n) {
        long seed = new SplittableRandom().nextLong();
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of())) {
                SplittableRandom plan = new SplittableRandom(seed); // the same on every rank
                int[] oneSided = {2, 5, 6, 7};
                for (int run = 0; run < 60; run++) {
                    int op = oneSided[plan.nextInt(oneSided.length)];
                    int root = plan.nextInt(n);
                    for (int call = 0; call < 50; call++) {
                        int count = plan.nextInt(1, op == 7 || op == 6 ? 1024 / n : 1024);
                        check(comm, op, count, root, plan.nextLong(), plan.nextBoolean(), run * 50 + call);
                    }
                }
                return null;
            }
        });
    }

    /**
     * Two ranks in short runs (1 to 9 calls) of every kind of small call, the root changing from run to run, each
     * rank pausing now and then on its own (so that either runs ahead, and the one behind may be either role):
     * a two-rank broadcast's or scatter's receiver leaves three box calls in four unposted
     * ({@link Boxes#QUIET_PERIOD}), and room, the lag that says a box is free, and the comparison of calls must
     * follow who posted what whichever way the roles fall. A box written again before its reader was done would show
     * as a wrong output; a rank waiting for a post that never comes, as a timeout (20 s).
     */
    @Test
    void twoRanksTakingTurnsInShortRunsMatchTheReference() {
        int n = 2;
        long seed = new SplittableRandom().nextLong();
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_TIMEOUT", "20s"))) {
                SplittableRandom plan = new SplittableRandom(seed); // the same on every rank
                SplittableRandom pauses = new SplittableRandom(seed + 1 + rank); // each rank's own
                int round = 0;
                while (round < 3000) {
                    int op = plan.nextInt(OPS);
                    int root = plan.nextInt(n);
                    for (int run = plan.nextInt(1, 10); run > 0; run--, round++) {
                        int count = plan.nextInt(1, plan.nextInt(20) == 0 ? 1400 : 64);
                        if (op == 3 || op == 4 || op == 6 || op == 7) {
                            count = Math.max(1, count / n);
                        }
                        long salt = plan.nextLong();
                        boolean direct = plan.nextBoolean();
                        if (pauses.nextInt(16) == 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(pauses.nextInt(200_000));
                        }
                        try {
                            check(comm, op, count, root, salt, direct, round);
                        } catch (AssertionError | RuntimeException e) {
                            throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
                        }
                    }
                }
                return null;
            }
        });
    }

    /**
     * Two ranks that close after 1 to {@code 2 * QUIET_PERIOD} small broadcasts, so after each place in the
     * period: where the receiver left its last box unposted, it posts it as it closes, and the root, which compares
     * the last call as it closes, waits for it. Neither may fail or wait out the timeout; every value is checked.
     */
    @Test
    void twoRanksCloseCleanlyAfterEveryPlaceInTheQuietPeriod() {
        int n = 2;
        for (int calls = 1; calls <= 2 * Boxes.QUIET_PERIOD; calls++) {
            int k = calls;
            int port = ShmGroup.freePort();
            Ranks.all(n, Duration.ofMinutes(1), rank -> {
                try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_TIMEOUT", "20s"))) {
                    for (int call = 0; call < k; call++) {
                        check(comm, 2, 1 + call, 0, 1000L * k + call, false, call);
                    }
                }
                return null;
            });
        }
    }

    /**
     * A root of small broadcasts runs ahead of receivers that are late: it posts {@link Layout#BOXES} - 1 calls
     * before any receiver has entered the first, and then waits for room before the next; the receivers, once they
     * come, find every call's own values. Three ranks; the receivers enter only once the root has returned from
     * its run (or after 20 s, and then fail).
     */
    @Test
    void aRootRunsAheadOfLateReceiversAndTheyStillGetEveryCallsValues() {
        int n = 3;
        int ahead = Layout.BOXES - 1;
        int calls = 5 * Layout.BOXES;
        int port = ShmGroup.freePort();
        java.util.concurrent.CountDownLatch posted = new java.util.concurrent.CountDownLatch(1);
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_TIMEOUT", "60s"))) {
                SplittableRandom values = new SplittableRandom(42);
                for (int call = 0; call < calls; call++) {
                    if (rank == 0 && call == ahead) {
                        posted.countDown();
                    }
                    if (rank != 0 && call == 0) {
                        assertTrue(posted.await(20, java.util.concurrent.TimeUnit.SECONDS),
                                "the root did not return from " + ahead + " broadcasts that no receiver had entered");
                    }
                    long[] expected = {values.nextLong(), values.nextLong(), call};
                    long[] v = rank == 0 ? expected.clone() : new long[3];
                    comm.broadcast(HostBuffer.of(v), 0);
                    assertArrayEquals(expected, v, "call " + call + ", rank " + rank);
                }
                return null;
            }
        });
    }

    /**
     * A broadcast's receivers wait on the root, not on each other: of four ranks, the root and one receiver make five
     * small broadcasts before the two other receivers have entered the first (these enter once that receiver has
     * returned from its five, or after 20 s, and then fail); then all four make forty more, every value checked.
     */
    @Test
    void aReceiverDoesNotWaitForTheOtherReceivers() {
        int n = 4;
        int early = 5;
        int port = ShmGroup.freePort();
        java.util.concurrent.CountDownLatch received = new java.util.concurrent.CountDownLatch(1);
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_TIMEOUT", "60s"))) {
                SplittableRandom values = new SplittableRandom(7);
                for (int call = 0; call < early + 40; call++) {
                    if (rank == 1 && call == early) {
                        received.countDown();
                    }
                    if (rank >= 2 && call == 0) {
                        assertTrue(received.await(20, java.util.concurrent.TimeUnit.SECONDS),
                                "rank 1 did not return from " + early + " broadcasts that ranks 2 and 3 had not entered");
                    }
                    float[] expected = {(float) values.nextDouble(), call};
                    float[] v = rank == 0 ? expected.clone() : new float[2];
                    comm.broadcast(HostBuffer.of(v), 0);
                    assertArrayEquals(expected, v, "call " + call + ", rank " + rank);
                }
                return null;
            }
        });
    }

    @FunctionalInterface
    private interface Body {
        void run(Buffer send, Buffer recv);
    }

    /** Runs {@code body} on {@code send} and a fresh output of {@code outCount}, as arrays or as direct memory. */
    private static int[] run(boolean direct, int[] send, int outCount, Body body) {
        if (!direct) {
            int[] out = new int[outCount];
            body.run(HostBuffer.of(send), HostBuffer.of(out));
            return out;
        }
        ByteBuffer in = ByteBuffer.allocateDirect(send.length * 4).order(ByteOrder.nativeOrder());
        in.asIntBuffer().put(send);
        ByteBuffer out = ByteBuffer.allocateDirect(outCount * 4).order(ByteOrder.nativeOrder());
        body.run(HostBuffer.of(in, DataType.INT32), HostBuffer.of(out, DataType.INT32));
        int[] result = new int[outCount];
        out.asIntBuffer().get(result);
        return result;
    }

    /** Rank {@code r}'s input of a round: small values whose sums over ranks are exact. */
    private static int[] input(int r, int count, long salt) {
        SplittableRandom values = new SplittableRandom(salt + 31L * r);
        int[] v = new int[count];
        for (int i = 0; i < count; i++) {
            v[i] = values.nextInt(-1_000_000, 1_000_000);
        }
        return v;
    }

    /** Elements {@code [from, from + count)} of the sum over ranks of every rank's input, in 64-bit arithmetic. */
    private static int[] sums(int n, int count, long salt, int from) {
        long[] sum = new long[count];
        for (int r = 0; r < n; r++) {
            int[] v = input(r, from + count, salt);
            for (int i = 0; i < count; i++) {
                sum[i] += v[from + i];
            }
        }
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            out[i] = Math.toIntExact(sum[i]);
        }
        return out;
    }

    /**
     * The boxes keep their views of a caller's buffers from one call to the next ({@link KeptViews}, {@link
     * Boxes#data}): a training loop passes the same buffers every call with new contents. Three ranks pass the same
     * send and receive buffers (an AllReduce every fourth call in place) to 900 calls of AllReduce, AllGather and
     * All-to-All in turn, with new values and a count that sometimes stays and sometimes changes, as direct memory
     * (kept views) and as arrays (copied through a stage, never kept); every output must be this call's.
     */
    @Test
    void buffersPassedAgainAreReadAndWrittenAfresh() {
        int n = 3;
        int capacity = 96;
        long seed = new SplittableRandom().nextLong();
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of())) {
                for (boolean direct : new boolean[] {true, false}) {
                    int[] sendArray = new int[capacity];
                    int[] recvArray = new int[capacity];
                    ByteBuffer sendMemory = ByteBuffer.allocateDirect(capacity * 4).order(ByteOrder.nativeOrder());
                    ByteBuffer recvMemory = ByteBuffer.allocateDirect(capacity * 4).order(ByteOrder.nativeOrder());
                    HostBuffer send = direct ? HostBuffer.of(sendMemory, DataType.INT32) : HostBuffer.of(sendArray);
                    HostBuffer recv = direct ? HostBuffer.of(recvMemory, DataType.INT32) : HostBuffer.of(recvArray);
                    SplittableRandom plan = new SplittableRandom(seed); // the same on every rank
                    int count = 1;
                    for (int call = 0; call < 900; call++) {
                        int op = call % 3;
                        count = plan.nextInt(4) == 0 ? plan.nextInt(1, capacity / n + 1) : count;
                        long salt = plan.nextLong();
                        boolean inPlace = op == 0 && call % 4 == 0;
                        int inCount = op == 2 ? count * n : count;
                        int outCount = op == 0 ? count : count * n;
                        int[] mine = input(rank, inCount, salt);
                        if (direct) {
                            (inPlace ? recvMemory : sendMemory).asIntBuffer().put(mine);
                        } else {
                            System.arraycopy(mine, 0, inPlace ? recvArray : sendArray, 0, inCount);
                        }
                        HostBuffer in = inPlace ? recv : send;
                        int[] expected = new int[outCount];
                        switch (op) {
                            case 0 -> {
                                comm.allReduce(in, recv, count, ReduceOp.SUM);
                                expected = sums(n, count, salt, 0);
                            }
                            case 1 -> {
                                comm.allGather(in, recv, count);
                                for (int j = 0; j < n; j++) {
                                    System.arraycopy(input(j, count, salt), 0, expected, j * count, count);
                                }
                            }
                            default -> {
                                comm.allToAll(in, recv, count);
                                for (int j = 0; j < n; j++) {
                                    System.arraycopy(input(j, count * n, salt), rank * count, expected, j * count, count);
                                }
                            }
                        }
                        int[] out = new int[outCount];
                        if (direct) {
                            recvMemory.asIntBuffer().get(out);
                        } else {
                            System.arraycopy(recvArray, 0, out, 0, outCount);
                        }
                        assertArrayEquals(expected, out, "call " + call + ", op " + op + ", count " + count
                                + (direct ? ", direct" : ", arrays") + (inPlace ? ", in place" : "") + ", rank " + rank);
                    }
                }
                return null;
            }
        });
    }

    /**
     * Issue 17's first finding, through the boxes: of three ranks broadcasting 100 floats, one names root 1 where
     * the others name root 0 (of two, each names itself). Every rank must fail, none may return with data the others
     * do not have: a rank that takes itself for the root returns without waiting, so it fails at a later call or,
     * where there is none, as it closes.
     */
    @ParameterizedTest(name = "{0} ranks, then {1}")
    @CsvSource({"3, a barrier", "3, close", "3, ten more broadcasts", "2, a barrier", "2, close",
            "2, ten more broadcasts"}) // two: both take themselves for the root, and read in batches
    void aBroadcastWithAnotherRootFailsOnEveryRank(int n, String then) {
        int port = ShmGroup.freePort();
        List<JcollException> failures = Ranks.all(n, Duration.ofMinutes(1), rank -> {
            Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_TIMEOUT", "60s"));
            float[] v = new float[100];
            java.util.Arrays.fill(v, rank);
            JcollException failure = null;
            try {
                comm.broadcast(HostBuffer.of(v), rank == 1 ? 1 : 0);
                if (then.equals("a barrier")) {
                    comm.barrier();
                } else if (then.startsWith("ten")) {
                    for (int i = 0; i < 10; i++) { // more than a root may post without reading its peers' boxes
                        comm.broadcast(HostBuffer.of(v), 0);
                    }
                }
            } catch (JcollException e) {
                failure = e;
            }
            try {
                comm.close();
            } catch (JcollException e) {
                failure = failure == null ? e : failure;
            }
            assertNotNull(failure, "rank " + rank + " returned from the broadcast, " + then + " with no error");
            return failure;
        });
        for (int r = 0; r < n; r++) {
            String message = failures.get(r).getMessage();
            assertTrue(message.contains("root 0") && message.contains("root 1"), message);
        }
    }

    /**
     * A broadcast's root returns without waiting for its receivers; one that never took part (it closed) is
     * named when the root closes, not passed over.
     */
    @Test
    void aRootThatDidNotWaitNamesAReceiverThatNeverCameWhenItCloses() {
        int n = 2;
        int port = ShmGroup.freePort();
        List<JcollException> failures = Ranks.all(n, Duration.ofMinutes(1), rank -> {
            Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_TIMEOUT", "60s"));
            if (rank == 1) {
                comm.close();
                return null;
            }
            comm.broadcast(HostBuffer.of(new float[10]), 0);
            return assertThrows(JcollException.class, comm::close);
        });
        String message = failures.get(0).getMessage();
        assertEquals(1, failures.get(0).peer(), message);
        assertTrue(message.contains("rank 1 closed its communicator"), message);
    }

    @Test
    void theBoxLimitIsChecked() {
        assertEquals(Boxes.CAPACITY, ShmTransport.boxBytes(io.jcoll.spi.Settings.of(Map.of())));
        assertEquals(0, ShmTransport.boxBytes(io.jcoll.spi.Settings.of(Map.of("JCOLL_SHM_BOX", "0"))));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShmTransport.boxBytes(io.jcoll.spi.Settings.of(Map.of("JCOLL_SHM_BOX", "8K"))));
        assertTrue(e.getMessage().contains("JCOLL_SHM_BOX"), e.getMessage());
    }
}
