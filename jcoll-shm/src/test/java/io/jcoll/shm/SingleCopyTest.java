package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.testing.Case;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Single copy: ranks reading each other's buffers with process_vm_readv (ranks as threads here read their own
 * process's memory; the process ranks of ShmFaultTest read each other's). Every call of every size takes it here
 * (JCOLL_SHM_SINGLE_COPY_MIN=1, no boxes) where its buffers allow, against the double-precision reference; and
 * under JCOLL_SHM_SINGLE_COPY=timed, and by default for two ranks that copy alone, where rank 0 picks it or the
 * slots call by call, every rank takes its way. JDK 17-21 have no binding: there the ranks say so and take the slots.
 */
class SingleCopyTest {

    private static final int[] COUNTS = {0, 1, 2, 13, 97, 1000, 4099};
    private static final Map<String, String> EVERY_CALL = Map.of("JCOLL_SHM_SINGLE_COPY_MIN", "1",
            "JCOLL_SHM_SINGLE_COPY_GATHER_MIN", "1", "JCOLL_SHM_SINGLE_COPY_BROADCAST_MIN", "1",
            "JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN", "1", "JCOLL_SHM_SINGLE_COPY_REDUCE_MIN", "1", "JCOLL_SHM_BOX", "0",
            "JCOLL_SHM_SLOT", "4K",
            "JCOLL_SHM_RING", "4K", "JCOLL_TCP_SEGMENT", "1K");

    /**
     * Every collective, type, count, memory kind (all-to-all, all-gather and gather of direct buffers read
     * directly; heap buffers and arrays, which have no address, through the slots), in and out of place, and the
     * rooted ones with every root.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 5})
    void everyCollectiveMatchesTheReference(int n) {
        matches(n, EVERY_CALL);
    }

    /** The same with crews of three sharing each rank's reads, in shares as small as 64 bytes. */
    @ParameterizedTest(name = "{0} ranks, crews of 3")
    @ValueSource(ints = {2, 3})
    void everyCollectiveMatchesTheReferenceWithCrews(int n) {
        Map<String, String> settings = new HashMap<>(EVERY_CALL);
        settings.put("JCOLL_SHM_THREADS", "3");
        settings.put("JCOLL_SHM_SHARE_MIN", "64");
        matches(n, settings);
    }

    private static void matches(int n, Map<String, String> settings) {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        List<Case> cases = new ArrayList<>(Case.matrix(COUNTS, true, n));
        cases.addAll(Case.extendedMatrix(COUNTS, n, cases.size()));
        int port = ShmGroup.freePort();
        List<List<double[]>> results = Ranks.all(n, Duration.ofMinutes(5), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, settings)) {
                String summary = comm.network().summary();
                assertTrue(summary.contains("for all-to-alls from 1 B (in place from 1 B, through at most 16 KiB of "
                        + "scratch), gathers from 1 B, out-of-place broadcasts from 1 B and all-reduces from 1 B"),
                        summary);
                return Case.runAll(comm, cases);
            }
        });
        Case.allReducesAgree(cases, results);
    }

    /**
     * Ranks whose buffers differ in kind: where any rank's input is a heap buffer, every rank takes the slots for
     * that call, having seen the same addresses; where only outputs are, they are read into through a bounce
     * buffer. Fresh random data, 4 ranks, counts not divisible by them, checked element by element.
     */
    @Test
    void ranksWithDirectAndHeapBuffersAgreeOnThePath() {
        int n = 4;
        int port = ShmGroup.freePort();
        long seed = new SplittableRandom().nextLong();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, EVERY_CALL)) {
                for (int round = 0; round < 4; round++) {
                    // inputs: all direct in even rounds, one rank's on the heap in odd ones; outputs mixed always
                    boolean direct = round % 2 == 0 || rank != round;
                    boolean directOut = rank % 2 == 0;
                    int count = 997 + 13 * round;
                    allToAllIsRight(comm, seed, count, direct, directOut);
                    // all-gather of each rank's block for itself
                    ByteBuffer mine = buffer(direct, count);
                    for (int i = 0; i < count; i++) {
                        mine.putFloat(i * 4, value(seed, rank, rank, i));
                    }
                    ByteBuffer all = buffer(directOut, count * n);
                    comm.allGather(HostBuffer.of(mine, DataType.FLOAT32), HostBuffer.of(all, DataType.FLOAT32), count);
                    for (int s = 0; s < n; s++) {
                        for (int i = 0; i < count; i++) {
                            assertEquals(value(seed, s, s, i), all.getFloat((s * count + i) * 4), "all-gather");
                        }
                    }
                    // an all-reduce: some rank's output is on the heap in every round, so every rank takes the slots
                    allReduceIsRight(comm, seed, count, direct, directOut, false);
                    // and a broadcast (always the slots) between them, from a root of either kind
                    int root = round % n;
                    ByteBuffer b = buffer(direct, count);
                    if (rank == root) {
                        for (int i = 0; i < count; i++) {
                            b.putFloat(i * 4, value(seed, root, -1, i));
                        }
                    }
                    comm.broadcast(HostBuffer.of(b, DataType.FLOAT32), root);
                    for (int i = 0; i < count; i++) {
                        assertEquals(value(seed, root, -1, i), b.getFloat(i * 4), "broadcast");
                    }
                }
                return null;
            }
        });
    }

    /**
     * Whether a call is in place is each rank's own business (one rank's all-to-all in place beside its peers' out
     * of place; a broadcast's root in place, its receivers knowing nothing of it): the ranks still take one path for
     * each call, single copy or the slots, and every result is right. 3 ranks, fresh random data, a prime count.
     */
    @Test
    void ranksThatDifferOnInPlaceAgreeOnThePath() {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int n = 3;
        int port = ShmGroup.freePort();
        long seed = new SplittableRandom().nextLong();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, EVERY_CALL)) {
                for (int round = 0; round < 2 * n; round++) {
                    int count = 1009 + round;
                    boolean inPlace = rank == round % n;
                    allToAllIsRight(comm, seed, count, true, true, inPlace);
                    allReduceIsRight(comm, seed, count, true, true, inPlace); // one rank in place, read across
                    // a broadcast whose root is in place in odd rounds; receivers' outputs direct and on the heap
                    int root = round % n;
                    ByteBuffer in = buffer(true, count);
                    if (rank == root) {
                        for (int i = 0; i < count; i++) {
                            in.putFloat(i * 4, value(seed, root, -1 - round, i));
                        }
                    }
                    boolean rootInPlace = round % 2 == 1;
                    ByteBuffer out = rank == root && rootInPlace ? in : buffer(rank % 2 == 0, count);
                    comm.broadcast(HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(out, DataType.FLOAT32), count, root);
                    if (rank == root) {
                        // once a root returns its receivers are done with its input, whatever it writes there
                        ByteBuffer check = buffer(true, count).put(out.duplicate().clear()).clear();
                        for (int i = 0; i < count; i++) {
                            in.putFloat(i * 4, -1f);
                        }
                        out = check;
                    }
                    for (int i = 0; i < count; i++) {
                        assertEquals(value(seed, root, -1 - round, i), out.getFloat(i * 4), "broadcast");
                    }
                }
                return null;
            }
        });
    }

    /**
     * Which inputs a rank offers its peers to read: any direct input, an all-to-all's in place too (read in chunks
     * that no rank overwrites early), but a broadcast's root in place only up to the size agreed for it (none but
     * where two ranks copy alone); a heap buffer never (it has no address).
     */
    @Test
    void inPlaceRootsAreOfferedForReadingUpToTheirLimit() {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        HostBuffer direct = HostBuffer.of(buffer(true, 64), DataType.FLOAT32);
        HostBuffer other = HostBuffer.of(buffer(true, 64), DataType.FLOAT32);
        HostBuffer heap = HostBuffer.of(buffer(false, 64), DataType.FLOAT32);
        long none = SingleCopy.NO_IN_PLACE_ROOT;
        assertTrue(SingleCopy.sourceAddress(call(Operation.BROADCAST, direct, other, 64, false), none) != 0);
        assertTrue(SingleCopy.sourceAddress(call(Operation.ALL_TO_ALL, direct, other, 32, false), none) != 0);
        assertTrue(SingleCopy.sourceAddress(call(Operation.ALL_TO_ALL, direct, direct, 32, true), none) != 0);
        assertEquals(0, SingleCopy.sourceAddress(call(Operation.BROADCAST, direct, direct, 64, true), none));
        assertEquals(0, SingleCopy.sourceAddress(call(Operation.ALL_GATHER, heap, other, 16, false), none));
        assertEquals(0, SingleCopy.sourceAddress(call(Operation.ALL_TO_ALL, heap, heap, 16, true), none));
        // an in-place root of up to 256 bytes (64 floats) read, one float more not
        assertTrue(SingleCopy.sourceAddress(call(Operation.BROADCAST, direct, direct, 64, true), 256) != 0);
        assertEquals(0, SingleCopy.sourceAddress(call(Operation.BROADCAST, direct, direct, 65, true), 256));
    }

    private static Call call(Operation op, HostBuffer send, HostBuffer recv, long count, boolean inPlace) {
        return new Call(op, send, recv, count, DataType.FLOAT32, null, op.isRooted() ? 0 : -1, 0, inPlace);
    }

    /**
     * The defaults: two ranks that each copy alone (no crews) read their peers for out-of-place all-to-alls and
     * gathers from 8 KiB and out-of-place broadcasts from 16 KiB, all-reduces from 8 to 32 MiB, in-place
     * all-to-alls at 2-8 MiB and in-place broadcasts from their roots (rank 0 picking), and real calls of
     * 160 KiB-8 MiB on either side of those sizes are right; with crews on any rank, or three ranks, all-to-alls from
     * 512 KiB (never in place), gathers from 32 MiB and no broadcasts; all-reduces from 8 to 32 MiB where every rank copies alone, however many, none with a crew
     * on any rank; every rank saying the same.
     */
    @Test
    void defaultsFollowWhetherRanksCopyAlone() {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        String alone = "all-to-alls from 8 KiB (in place from 2 MiB to 8 MiB, through at most 1 MiB of scratch), "
                + "gathers from 8 KiB, out-of-place broadcasts from 16 KiB and all-reduces from 8 MiB to 32 MiB, "
                + "in-place broadcasts' roots too;";
        String many = "all-to-alls from 512 KiB (not in place), gathers from 32 MiB, no out-of-place broadcasts and ";
        defaultsAre(2, rank -> "1", alone);
        defaultsAre(2, rank -> rank == 0 ? "1" : "2", many + "no all-reduces");
        defaultsAre(3, rank -> "1", many + "all-reduces from 8 MiB to 32 MiB");
        defaultsAre(3, rank -> rank == 2 ? "2" : "1", many + "no all-reduces");
    }

    private static void defaultsAre(int n, java.util.function.IntFunction<String> threads, String expected) {
        int port = ShmGroup.freePort();
        long seed = new SplittableRandom().nextLong();
        int count = 64 << 10; // floats: 256 KiB a message
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_SHM_THREADS", threads.apply(rank)))) {
                String summary = comm.network().summary();
                assertTrue(summary.contains(expected), summary);
                assertEquals(expected.contains("in-place"), summary.contains("in-place broadcasts' roots"), summary);
                ByteBuffer in = buffer(true, count);
                for (int i = 0; i < count; i++) {
                    in.putFloat(i * 4, value(seed, rank, 0, i));
                }
                ByteBuffer out = buffer(true, count);
                comm.broadcast(HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(out, DataType.FLOAT32), count, 1);
                ByteBuffer all = buffer(true, count * n);
                comm.allGather(HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(all, DataType.FLOAT32), count);
                ByteBuffer shared = buffer(true, count); // in place from rank 0: read from it where two copy alone
                for (int i = 0; rank == 0 && i < count; i++) {
                    shared.putFloat(i * 4, value(seed, 0, 1, i));
                }
                comm.broadcast(HostBuffer.of(shared, DataType.FLOAT32), 0);
                for (int i = 0; i < count; i++) {
                    assertEquals(value(seed, 1, 0, i), out.getFloat(i * 4), "broadcast");
                    assertEquals(value(seed, 0, 1, i), shared.getFloat(i * 4), "broadcast in place");
                    for (int s = 0; s < n; s++) {
                        assertEquals(value(seed, s, 0, i), all.getFloat((s * count + i) * 4), "all-gather");
                    }
                }
                // a prime block: 160 KiB, so 320 KiB in all at two ranks (single copy alone, the slots with crews)
                allToAllIsRight(comm, seed, 40_009, true, true);
                allToAllInPlaceIsRight(comm, seed, 40_009);
                // in place, 2 MiB and 24 bytes in all at two ranks: read where two copy alone, in two chunks (1 MiB, 12 B)
                allToAllInPlaceIsRight(comm, seed, 262_147);
                // all-reduces of a prime count: 160 KiB (the slots), 8 MiB and 68 bytes (read where all copy alone)
                for (int elements : new int[] {40_009, 2_097_169}) {
                    allReduceIsRight(comm, seed, elements, false);
                    allReduceIsRight(comm, seed, elements, true);
                }
                return null;
            }
        });
    }

    /**
     * A float sum of {@code count} elements, rank r's element i value(r, 2, i), in or out of place, checked against
     * the sum in double precision (integers below 2^20 here, so every sum is exact in a float).
     */
    private static void allReduceIsRight(Communicator comm, long seed, int count, boolean inPlace) {
        allReduceIsRight(comm, seed, count, true, true, inPlace);
    }

    /** {@link #allReduceIsRight}, the input and output each direct or on the heap. */
    private static void allReduceIsRight(Communicator comm, long seed, int count, boolean directIn, boolean directOut,
                                         boolean inPlace) {
        int n = comm.size();
        ByteBuffer in = buffer(directIn, count);
        for (int i = 0; i < count; i++) {
            in.putFloat(i * 4, value(seed, comm.rank(), 2, i));
        }
        ByteBuffer out = inPlace ? in : buffer(directOut, count);
        comm.allReduce(HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(out, DataType.FLOAT32), count, ReduceOp.SUM);
        for (int i = 0; i < count; i++) {
            double sum = 0;
            for (int r = 0; r < n; r++) {
                sum += value(seed, r, 2, i);
            }
            assertEquals((float) sum, out.getFloat(i * 4), (inPlace ? "in place, " : "") + count + " elements, " + i);
        }
    }

    /** An all-to-all of {@code count} floats a block, rank r's block for d holding value(r, d, i), checked. */
    private static void allToAllIsRight(Communicator comm, long seed, int count, boolean directIn, boolean directOut) {
        allToAllIsRight(comm, seed, count, directIn, directOut, false);
    }

    /** {@link #allToAllIsRight} in place (direct memory). */
    private static void allToAllInPlaceIsRight(Communicator comm, long seed, int count) {
        allToAllIsRight(comm, seed, count, true, true, true);
    }

    private static void allToAllIsRight(Communicator comm, long seed, int count, boolean directIn, boolean directOut,
                                        boolean inPlace) {
        int n = comm.size();
        int rank = comm.rank();
        ByteBuffer send = buffer(directIn, count * n);
        for (int d = 0; d < n; d++) {
            for (int i = 0; i < count; i++) {
                send.putFloat((d * count + i) * 4, value(seed, rank, d, i));
            }
        }
        ByteBuffer recv = inPlace ? send : buffer(directOut, count * n);
        if (inPlace) {
            comm.allToAll(HostBuffer.of(send, DataType.FLOAT32), count);
        } else {
            comm.allToAll(HostBuffer.of(send, DataType.FLOAT32), HostBuffer.of(recv, DataType.FLOAT32), count);
        }
        for (int s = 0; s < n; s++) {
            for (int i = 0; i < count; i++) {
                assertEquals(value(seed, s, rank, i), recv.getFloat((s * count + i) * 4),
                        inPlace ? "all-to-all in place" : "all-to-all");
            }
        }
    }

    private static ByteBuffer buffer(boolean direct, int floats) {
        return (direct ? ByteBuffer.allocateDirect(floats * 4) : ByteBuffer.allocate(floats * 4))
                .order(ByteOrder.nativeOrder());
    }

    private static float value(long seed, int from, int to, int i) {
        return new SplittableRandom(seed ^ (from * 0x9E3779B97F4A7C15L) ^ (to * 0xBF58476D1CE4E5B9L) ^ i).nextInt(1 << 20);
    }

    /**
     * Single copy advances each rank's progress counter two phases a call and never frees a slot, so a slot last
     * freed before a long run of such calls lies more than {@link Waiter#MAX_LEAD} phases behind every counter when
     * the next call takes the slots: that call must still run, not take the counters' lead for garbage (a run of
     * 600,000 two-rank 128 KB all-to-alls did, at its first call in place).
     */
    @Test
    void aCallThroughTheSlotsAfterMoreSingleCopyPhasesThanTheLeadLimitRuns() {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int n = 2;
        long calls = Waiter.MAX_LEAD / 2 + 1_000; // two phases a call: past the limit
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, EVERY_CALL)) {
                allToAllIsRight(comm, 1, 3, false, false); // heap buffers: the slots, so that a slot has been freed
                HostBuffer send = HostBuffer.of(buffer(true, n), DataType.FLOAT32);
                HostBuffer recv = HostBuffer.of(buffer(true, n), DataType.FLOAT32);
                for (long c = 0; c < calls; c++) {
                    comm.allToAll(send, recv, 1);
                }
                allToAllIsRight(comm, 2, 3, false, false);
                allToAllIsRight(comm, 3, 5, true, true); // and single copy again
                return null;
            }
        });
    }

    @Test
    void offIsHonouredAndSaid() {
        int n = 2;
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_SHM_SINGLE_COPY", "off"))) {
                String summary = comm.network().summary();
                assertTrue(summary.contains("single copy off (JCOLL_SHM_SINGLE_COPY=off)"), summary);
                return null;
            }
        });
    }

    /** Without a binding (JDK 17-21) every rank says why single copy is off. */
    @Test
    void olderJdksSayWhySingleCopyIsOff() {
        assumeTrue(Runtime.version().feature() < 22);
        int n = 2;
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of())) {
                String summary = comm.network().summary();
                assertTrue(summary.contains("single copy off (it needs JDK 22 or later"), summary);
                return null;
            }
        });
    }

    /**
     * Ranks given different sizes to start from would take different paths for one call (one reading its peers,
     * the other through the slots): single copy is off for all of them, saying why, and calls of every size agree.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"JCOLL_SHM_SINGLE_COPY_MIN", "JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN",
            "JCOLL_SHM_SINGLE_COPY_REDUCE_MIN"})
    void ranksWithDifferentSizesKeepToTheSlotsAlike(String setting) {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int n = 3;
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            Map<String, String> settings = new HashMap<>(EVERY_CALL);
            settings.put(setting, rank == 2 ? "1M" : "1");
            try (Communicator comm = ShmGroup.join(rank, n, port, settings)) {
                String summary = comm.network().summary();
                assertTrue(summary.contains("single copy off (rank ") && summary.contains(
                        "set JCOLL_SHM_SINGLE_COPY_MIN, _GATHER_MIN, _BROADCAST_MIN, _IN_PLACE_MIN and _REDUCE_MIN alike"),
                        summary);
                int count = 1009;
                ByteBuffer send = buffer(true, count * n);
                ByteBuffer recv = buffer(true, count * n);
                for (int i = 0; i < count * n; i++) {
                    send.putFloat(i * 4, rank * 100_000 + i);
                }
                comm.allToAll(HostBuffer.of(send, DataType.FLOAT32), HostBuffer.of(recv, DataType.FLOAT32), count);
                for (int s = 0; s < n; s++) {
                    for (int i = 0; i < count; i++) {
                        assertEquals(s * 100_000 + rank * count + i, recv.getFloat((s * count + i) * 4));
                    }
                }
                return null;
            }
        });
    }

    @Test
    void aSettingOtherThanAutoTimedOrOffIsRefused() {
        int port = ShmGroup.freePort();
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> ShmGroup.join(0, 1, port, Map.of("JCOLL_SHM_SINGLE_COPY", "yes")).close());
        assertTrue(String.valueOf(e.getMessage()).contains("JCOLL_SHM_SINGLE_COPY must be auto, timed, sized or off"),
                e.toString());
    }

    /**
     * Under timed rank 0 alone picks single copy or the slots for a call, and every rank takes its way: each kind of
     * call goes by single copy for its first {@link PathChooser#RUN} calls and through the slots for as many next
     * ({@link PathChooser}; a rank that took the other way would hang or fail naming the call). Every op single copy
     * takes, in and out of place, at sizes from 1 element to 5461 (each a kind of its own), two calls more than two
     * runs each with fresh random data, checked against the double-precision reference; 2 and 3 ranks, rank 0's
     * report saying that it picks.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void everyRankTakesTheWayRankZeroPicks(int n) {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        Map<String, String> settings = new HashMap<>(EVERY_CALL);
        settings.put("JCOLL_SHM_SINGLE_COPY", "timed");
        int port = ShmGroup.freePort();
        long[] seedOf = freshSeeds(64);
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, settings)) {
                String summary = comm.network().summary();
                assertEquals(rank == 0, summary.contains(
                        "picked call by call against the slots by their recent times (JCOLL_SHM_SINGLE_COPY=timed)"),
                        summary);
                int call = 0;
                for (int count = 1; count <= 16 << 10; count = count * 4 + 1) { // 1, 5, 21 ... 5461 (21 KiB)
                    for (int time = 0; time < 2 * PathChooser.RUN + 2; time++) {
                        long seed = seedOf[call++ % seedOf.length];
                        allToAllIsRight(comm, seed, count, true, true);
                        allToAllInPlaceIsRight(comm, seed, count);
                        allReduceIsRight(comm, seed, count, false);
                        allReduceIsRight(comm, seed, count, true);
                        allGatherIsRight(comm, seed, count);
                        broadcastIsRight(comm, seed, count, time % n);
                    }
                }
                return null;
            }
        });
    }

    /**
     * By default (JCOLL_SHM_SINGLE_COPY=auto) rank 0 picks how two ranks that copy alone all-reduce ordinary buffers
     * from 128 KB (in place from 8 MB) to 32 MB: reading their peers or the slots ({@link PathChooser}). Each kind of
     * call reads for its first {@link PathChooser#RUN} calls (each rank as many bytes as the message, by
     * process_vm_readv: its peer's whole input, or the peer's slice of its input and of its output,
     * {@link PeerMemory#kernelReadBytes}) and goes through the slots for as many next (nothing read); every call is
     * right whichever way it goes. In-place calls below 8 MB never read; 3 ranks, whose reports do not say that
     * rank 0 picks, read at 8 MB every call and never at 1 MB. About 1 MB and 8 MB, prime counts, fresh random values.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void rankZeroPicksHowTwoRanksAllReduceOrdinaryBuffers(int n) {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int port = ShmGroup.freePort();
        long[] seedOf = freshSeeds(2 * PathChooser.RUN + 2);
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_SHM_THREADS", "1"))) {
                String summary = comm.network().summary();
                assertEquals(n == 2, summary.contains("where buffers are not shared rank 0 picks, call by call by "
                        + "their recent times, reading or the slots for those calls from 128 KiB, for reduce-scatters "
                        + "from 128 KiB "
                        + "and for all-reduces from 128 KiB (in place from 8 MiB) to 32 MiB "
                        + "(JCOLL_SHM_SINGLE_COPY=auto)"),
                        summary);
                for (int count : new int[] {262_147, 2_097_169}) {
                    long bytes = count * 4L;
                    for (int call = 0; call < seedOf.length; call++) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            int c = call;
                            long read = crossed(comm, () -> allReduceIsRight(comm, seedOf[c], count, inPlace)).read();
                            boolean picked = n == 2 && (!inPlace || bytes >= 8 << 20);
                            boolean reads = picked ? call < PathChooser.RUN : bytes >= 8 << 20; // 3 alone: from 8 MB
                            if (!picked || call < 2 * PathChooser.RUN) { // after the first runs: either way
                                assertEquals(reads ? 2L * (n - 1) * bytes : 0, read,
                                        "bytes read by process_vm_readv in call " + call + " of " + bytes + " B"
                                                + (inPlace ? " in place" : "") + ", " + n + " ranks");
                            }
                        }
                    }
                }
                return null;
            }
        });
    }

    /**
     * As for all-reduces, by default rank 0 picks how two ranks that copy alone all-gather, all-to-all and broadcast
     * ordinary buffers where single copy may take them (from 128 KB): each op reads for its first
     * {@link PathChooser#RUN} calls (each rank the blocks it receives, by process_vm_readv; of the out-of-place
     * broadcast's message, the receiver reads what its root does not write with process_vm_writev, whole pages of
     * the start, as much as {@link ShareBalancer} finds) and goes through the slots for as many next; every call is
     * right. Given a single-copy size, rank 0 does not pick: every call reads.
     * A prime count of about 256 KB a block, fresh random values, the broadcast's root alternating.
     */
    @ParameterizedTest(name = "sizes given: {0}")
    @ValueSource(booleans = {false, true})
    void rankZeroPicksHowTwoRanksMoveOrdinaryBuffers(boolean sizesGiven) {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int n = 2;
        int count = 65_537;
        long block = count * 4L;
        int port = ShmGroup.freePort();
        Map<String, String> settings = sizesGiven
                ? Map.of("JCOLL_SHM_THREADS", "1", "JCOLL_SHM_SINGLE_COPY_MIN", "128K")
                : Map.of("JCOLL_SHM_THREADS", "1");
        long[] seedOf = freshSeeds(2 * PathChooser.RUN);
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, settings)) {
                for (int call = 0; call < seedOf.length; call++) {
                    boolean reads = sizesGiven || call < PathChooser.RUN;
                    long seed = seedOf[call];
                    long[] expected = {2 * block, 2 * block, block}; // across, both ranks: the blocks received
                    for (int op = 0; op < 3; op++) {
                        int o = op;
                        int root = call % n;
                        Crossed crossed = crossed(comm, () -> {
                            switch (o) {
                                case 0 -> allGatherIsRight(comm, seed, count);
                                case 1 -> allToAllIsRight(comm, seed, count, true, true);
                                default -> broadcastIsRight(comm, seed, count, root);
                            }
                        });
                        long written = crossed.written();
                        assertEquals(reads ? expected[op] : 0, crossed.read() + written,
                                "bytes read by process_vm_readv and written by process_vm_writev in call " + call
                                        + " of op " + op);
                        assertTrue(written % 4096 == 0 && written <= (op == 2 && reads ? block / 2 : 0),
                                written + " bytes written by process_vm_writev in call " + call + " of op " + op);
                    }
                }
                return null;
            }
        });
    }

    /**
     * Below {@link SingleCopy#ALONE_PICK_MIN_BYTES} two ranks that copy alone read every call where single copy takes
     * it, with no pick: all-gathers and all-to-alls from {@link SingleCopy#ALONE_MIN_BYTES}, broadcasts from
     * {@link SingleCopy#ALONE_BROADCAST_MIN_BYTES}, and no root writes a share in place below
     * {@link SingleCopy#IN_PLACE_ROOT_SHARE_MIN_BYTES} (out of place, {@link ShareBalancerTest} covers the
     * balancer's minimum: these calls are too few for it to grow a share of a page). A broadcast under its size goes
     * through the slots, reading nothing. {@code 2 * RUN} calls of each, as
     * many as a pick would have split between the two ways; prime counts, fresh random values, the root alternating.
     */
    @Test
    void twoRanksReadSmallCallsWithoutAPick() {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int n = 2;
        int port = ShmGroup.freePort();
        long[] seedOf = freshSeeds(2 * PathChooser.RUN);
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_SHM_THREADS", "1"))) {
                // 12,004 B a block: all-gathers and all-to-alls read (24 KB in all), a broadcast takes the slots;
                // 20,012 B: the broadcast reads too, its root writing nothing in place or out
                for (int count : new int[] {3_001, 5_003}) {
                    long block = count * 4L;
                    boolean broadcastReads = block >= SingleCopy.ALONE_BROADCAST_MIN_BYTES;
                    long[] expected = {2 * block, 2 * block, broadcastReads ? block : 0, broadcastReads ? block : 0};
                    for (int call = 0; call < seedOf.length; call++) {
                        long seed = seedOf[call];
                        int root = call % n;
                        for (int op = 0; op < expected.length; op++) {
                            int o = op;
                            Crossed crossed = crossed(comm, () -> {
                                switch (o) {
                                    case 0 -> allGatherIsRight(comm, seed, count);
                                    case 1 -> allToAllIsRight(comm, seed, count, true, true);
                                    case 2 -> broadcastIsRight(comm, seed, count, root);
                                    default -> broadcastInPlaceIsRight(comm, seed, count, root);
                                }
                            });
                            assertEquals(expected[op], crossed.read(), "bytes read by process_vm_readv in call "
                                    + call + " of op " + op + ", " + block + " B a block");
                            assertEquals(0, crossed.written(), "bytes written by process_vm_writev in call " + call
                                    + " of op " + op + ", " + block + " B a block");
                        }
                    }
                }
                return null;
            }
        });
    }

    /**
     * Two ranks that copy alone gather by writing, all-gathers from a third of rank 0's last-level cache (here
     * JCOLL_SHM_CACHE=24M: 8 MiB of output, where rank 1 was given another cache and goes by rank 0's) and gathers to
     * a root from {@link SingleCopy#ALONE_GATHER_WRITE_MIN_BYTES}: each rank writes its block into each receiving
     * peer's output (an all-gather's peer, a gather's root) with process_vm_writev and reads nothing, out of place and
     * in place, in one chunk or several and a remainder; where a gather's root has an array for its output (no address
     * to write at) it reads its peer instead, and below those sizes every receiver reads. Prime counts, fresh random
     * values, the root alternating, every element checked; JCOLL_SHM_SINGLE_COPY=sized, so that no pick sends a call
     * to the slots.
     */
    @Test
    void twoRanksGatherByWritingTheirPeers() {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int n = 2;
        int port = ShmGroup.freePort();
        long[] seedOf = freshSeeds(4);
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_SHM_THREADS", "1",
                    "JCOLL_SHM_SINGLE_COPY", "sized", "JCOLL_SHM_CACHE", rank == 0 ? "24M" : "1G"))) {
                String summary = comm.network().summary();
                assertTrue(summary.contains("gathers to a root from 512 KiB and all-gathers from 8 MiB (past a "
                        + "last-level cache of 24 MiB) write their peers' outputs"), summary);
                // blocks of 128 KB and 12 B (read); 256 KB and 4 B (gathers written, one chunk); 640 KB and 4 B
                // (gathers written, three chunks); 8 MB and 68 B (both written, 33 chunks)
                for (int count : new int[] {32_771, 65_537, 163_841, 2_097_169}) {
                    long block = count * 4L;
                    boolean allGatherWrites = n * block >= SingleCopy.allGatherWriteMinBytes(24 << 20);
                    boolean gatherWrites = n * block >= SingleCopy.ALONE_GATHER_WRITE_MIN_BYTES;
                    for (int call = 0; call < seedOf.length; call++) {
                        long seed = seedOf[call];
                        int root = call % n;
                        String at = " of " + block + " B a block, call " + call;
                        crossedOnce(allGatherWrites, n * block,
                                crossed(comm, () -> allGatherIsRight(comm, seed, count)), "all-gather" + at);
                        crossedOnce(allGatherWrites, n * block,
                                crossed(comm, () -> allGatherInPlaceIsRight(comm, seed, count)),
                                "all-gather in place" + at);
                        crossedOnce(gatherWrites, block,
                                crossed(comm, () -> gatherIsRight(comm, seed, count, root, true)),
                                "gather to rank " + root + at);
                        crossedOnce(false, block, crossed(comm, () -> gatherIsRight(comm, seed, count, root, false)),
                                "gather to rank " + root + "'s array" + at);
                    }
                }
                return null;
            }
        });
    }

    /** That {@code crossed} moved {@code bytes} across, all of them written by the senders or all read by receivers. */
    private static void crossedOnce(boolean written, long bytes, Crossed crossed, String call) {
        assertEquals(written ? bytes : 0, crossed.written(), "bytes written by process_vm_writev in the " + call);
        assertEquals(written ? 0 : bytes, crossed.read(), "bytes read by process_vm_readv in the " + call);
    }

    /** {@link #allGatherIsRight} in place: each rank's block already in its place in the one buffer. */
    private static void allGatherInPlaceIsRight(Communicator comm, long seed, int count) {
        int n = comm.size();
        ByteBuffer all = buffer(true, count * n);
        for (int i = 0; i < count * n; i++) { // the peers' blocks must all be overwritten
            all.putFloat(i * 4, -1);
        }
        for (int i = 0; i < count; i++) {
            all.putFloat((comm.rank() * count + i) * 4, value(seed, comm.rank(), 6, i));
        }
        comm.allGather(HostBuffer.of(all, DataType.FLOAT32), count);
        for (int s = 0; s < n; s++) {
            for (int i = 0; i < count; i++) {
                assertEquals(value(seed, s, 6, i), all.getFloat((s * count + i) * 4), "all-gather in place from " + s);
            }
        }
    }

    /** A gather of {@code count} floats a rank to {@code root}, its output direct memory or an array, checked there. */
    private static void gatherIsRight(Communicator comm, long seed, int count, int root, boolean directOut) {
        int n = comm.size();
        ByteBuffer mine = buffer(true, count);
        for (int i = 0; i < count; i++) {
            mine.putFloat(i * 4, value(seed, comm.rank(), 7, i));
        }
        ByteBuffer all = comm.rank() == root ? buffer(directOut, count * n) : null;
        comm.gather(HostBuffer.of(mine, DataType.FLOAT32), all == null ? null : HostBuffer.of(all, DataType.FLOAT32),
                count, root);
        for (int s = 0; all != null && s < n; s++) {
            for (int i = 0; i < count; i++) {
                assertEquals(value(seed, s, 7, i), all.getFloat((s * count + i) * 4), "gather from rank " + s);
            }
        }
    }

    /**
     * Rank 0 picks how two ranks that copy alone reduce-scatter ordinary buffers too (from 128 KB of input): each
     * kind, in place and out, reads for its first {@link PathChooser#RUN} calls (each rank its block of its peer's
     * input, by process_vm_readv) and goes through the slots for as many next; every call is right. Three ranks: no
     * pick, and buffers not shared are never read. A prime count of about 256 KB a block, fresh random values.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void rankZeroPicksHowTwoRanksReduceScatterOrdinaryBuffers(int n) {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int count = 65_537;
        long block = count * 4L;
        int port = ShmGroup.freePort();
        long[] seedOf = freshSeeds(2 * PathChooser.RUN);
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_SHM_THREADS", "1"))) {
                for (int call = 0; call < seedOf.length; call++) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        int c = call;
                        long read = crossed(comm,
                                () -> SharedCalls.reduceScatter(comm, seedOf[c], count, false, inPlace)).read();
                        boolean reads = n == 2 && call < PathChooser.RUN;
                        assertEquals(reads ? 2 * block : 0, read,
                                "bytes read by process_vm_readv in call " + call + (inPlace ? " in place" : "")
                                        + ", " + n + " ranks");
                    }
                }
                return null;
            }
        });
    }

    /** An all-gather of {@code count} floats a rank, fresh values from {@code seed}, checked element by element. */
    private static void allGatherIsRight(Communicator comm, long seed, int count) {
        int n = comm.size();
        ByteBuffer mine = buffer(true, count);
        for (int i = 0; i < count; i++) {
            mine.putFloat(i * 4, value(seed, comm.rank(), 3, i));
        }
        ByteBuffer all = buffer(true, count * n);
        comm.allGather(HostBuffer.of(mine, DataType.FLOAT32), HostBuffer.of(all, DataType.FLOAT32), count);
        for (int s = 0; s < n; s++) {
            for (int i = 0; i < count; i++) {
                assertEquals(value(seed, s, 3, i), all.getFloat((s * count + i) * 4), "all-gather from rank " + s);
            }
        }
    }

    /**
     * Where rank 0 picks (two ranks that copy alone, JCOLL_SHM_SINGLE_COPY=auto), an in-place broadcast's root is
     * offered for reading at any size, above {@link SingleCopy#ALONE_IN_PLACE_ROOT_MAX_BYTES} too: for the first
     * {@link PathChooser#RUN} calls of each root the receiver reads the message and the slots take as many next
     * (rank 0 keeps the calls it roots apart from those it receives: only a root's call is in place). Where the
     * receiver's buffer is direct, the root writes the whole pages of the first half into it
     * ({@code process_vm_writev}) and the receiver reads the rest; where it is an array, the receiver reads it all.
     * Given a single-copy size, rank 0 does not pick and the root is read up to that limit only: every call goes
     * through the slots. A prime count just above 2 MiB, fresh random values, the root alternating; every call right.
     */
    @ParameterizedTest(name = "sizes given: {0}, receivers' buffers arrays: {1}")
    @CsvSource({"false, false", "false, true", "true, false"})
    void largeInPlaceRootsAreReadWhereRankZeroPicks(boolean sizesGiven, boolean arrays) {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int n = 2;
        int count = 524_309; // floats: 2 MiB and 84 bytes
        long bytes = count * 4L;
        long share = arrays ? 0 : bytes / 2 / 4096 * 4096; // what the root writes
        assertTrue(bytes > SingleCopy.ALONE_IN_PLACE_ROOT_MAX_BYTES);
        int port = ShmGroup.freePort();
        Map<String, String> settings = sizesGiven
                ? Map.of("JCOLL_SHM_THREADS", "1", "JCOLL_SHM_SINGLE_COPY_MIN", "128K")
                : Map.of("JCOLL_SHM_THREADS", "1");
        long[] seedOf = freshSeeds(2 * n * PathChooser.RUN);
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, settings)) {
                ByteBuffer direct = buffer(true, count);
                float[] array = new float[count];
                for (int call = 0; call < seedOf.length; call++) {
                    boolean reads = !sizesGiven && call / n < PathChooser.RUN;
                    int root = call % n;
                    boolean onHeap = arrays && rank != root;
                    for (int i = 0; i < count; i++) { // the receiver's old contents differ from the root's
                        float v = value(seedOf[call], rank, 5, i);
                        direct.putFloat(i * 4, v);
                        array[i] = v;
                    }
                    Crossed crossed = crossed(comm, () -> comm.broadcast(
                            onHeap ? HostBuffer.of(array) : HostBuffer.of(direct, DataType.FLOAT32), root));
                    assertEquals(reads ? bytes - share : 0, crossed.read(),
                            "bytes read by process_vm_readv in call " + call);
                    assertEquals(reads ? share : 0, crossed.written(),
                            "bytes written by process_vm_writev in call " + call);
                    for (int i = 0; i < count; i++) {
                        assertEquals(value(seedOf[call], root, 5, i), onHeap ? array[i] : direct.getFloat(i * 4),
                                "in-place broadcast from rank " + root + ", call " + call + ", element " + i);
                    }
                }
                return null;
            }
        });
    }

    /**
     * Out-of-place broadcasts read by their receivers (a single-copy size given: every call reads), many in a row so
     * that each root's {@link ShareBalancer} moves its share as this host's times say: every call right, and each
     * call's message crossed once, the receiver reading what the root did not write (whole pages, at most half). A
     * prime count of about 1 MB, fresh random values, the root alternating.
     */
    @Test
    void outOfPlaceBroadcastsAreRightWhateverShareTheRootWrites() {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int n = 2;
        int count = 262_147;
        long bytes = count * 4L;
        int port = ShmGroup.freePort();
        long[] seedOf = freshSeeds(40 * ShareBalancer.EVERY);
        long[] written = new long[1];
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port,
                    Map.of("JCOLL_SHM_THREADS", "1", "JCOLL_SHM_SINGLE_COPY_MIN", "128K"))) {
                for (int call = 0; call < seedOf.length; call++) {
                    long seed = seedOf[call];
                    int root = call % n;
                    Crossed crossed = crossed(comm, () -> broadcastIsRight(comm, seed, count, root));
                    long wrote = crossed.written();
                    assertEquals(bytes, crossed.read() + wrote,
                            "bytes read and written in call " + call);
                    assertTrue(wrote % 4096 == 0 && wrote <= bytes / 2, wrote + " bytes written in call " + call);
                    if (rank == 0) {
                        written[0] += wrote;
                    }
                }
                return null;
            }
        });
        System.out.println("out-of-place broadcasts: the roots wrote " + written[0] + " of "
                + seedOf.length * bytes + " bytes");
    }

    /**
     * A call that single copy's first phase sends to the slots goes on to them without a second phase (nothing was
     * read): an all-to-all in place below the size from which it is read, an all-reduce whose input is on the heap on
     * one rank. Back to back with calls that read, rooted ones among them, a rank that leaves such a call first must
     * not publish its next call's words while a peer still reads this call's: each call is checked element by
     * element and the in-place all-to-all crosses no byte. Fresh random values, counts of 1 and primes, 2 and 3
     * ranks.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void callsSentToTheSlotsAfterTheFirstPhaseRunBackToBackWithReads(int n) {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        Map<String, String> settings = new HashMap<>(EVERY_CALL);
        settings.put("JCOLL_SHM_SINGLE_COPY_IN_PLACE_MIN", "1G");
        int port = ShmGroup.freePort();
        long[] seedOf = freshSeeds(150);
        int[] counts = {1, 13, 97, 1009};
        Ranks.all(n, Duration.ofMinutes(3), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, settings)) {
                for (int call = 0; call < seedOf.length; call++) {
                    long seed = seedOf[call];
                    int count = counts[call % counts.length];
                    int root = call % n;
                    Crossed inPlace = crossed(comm, () -> allToAllInPlaceIsRight(comm, seed, count));
                    assertEquals(0, inPlace.read() + inPlace.written(), "bytes crossed by the in-place all-to-all");
                    allToAllIsRight(comm, seed + 1, count, true, true);
                    allReduceIsRight(comm, seed + 2, count, rank != root, true, false);
                    broadcastIsRight(comm, seed + 3, count, root);
                    allToAllInPlaceIsRight(comm, seed + 4, count);
                    allGatherIsRight(comm, seed + 5, count);
                }
                return null;
            }
        });
    }

    /** Bytes of peers' memory the kernel read and wrote for a call, every rank of this process together. */
    private record Crossed(long read, long written) {
    }

    /**
     * What {@code call} made the kernel copy across: the ranks meet before and after it, so that every rank's copies
     * of the call before are counted before, and all of this one's after.
     */
    private static Crossed crossed(Communicator comm, Runnable call) {
        comm.barrier();
        long read = PeerMemory.kernelReadBytes();
        long written = PeerMemory.kernelWriteBytes();
        call.run();
        comm.barrier();
        return new Crossed(PeerMemory.kernelReadBytes() - read, PeerMemory.kernelWriteBytes() - written);
    }

    /** {@code count} fresh random seeds, one a call. */
    private static long[] freshSeeds(int count) {
        return new SplittableRandom().longs(count).toArray();
    }

    /** An in-place broadcast of {@code count} floats from {@code root}, checked element by element. */
    private static void broadcastInPlaceIsRight(Communicator comm, long seed, int count, int root) {
        ByteBuffer buffer = buffer(true, count);
        for (int i = 0; i < count; i++) { // the receivers' values must all be overwritten
            buffer.putFloat(i * 4, value(seed, comm.rank(), 5, i));
        }
        comm.broadcast(HostBuffer.of(buffer, DataType.FLOAT32), root);
        for (int i = 0; i < count; i++) {
            assertEquals(value(seed, root, 5, i), buffer.getFloat(i * 4), "broadcast in place from rank " + root);
        }
    }

    /** An out-of-place broadcast of {@code count} floats from {@code root}, checked element by element. */
    private static void broadcastIsRight(Communicator comm, long seed, int count, int root) {
        ByteBuffer in = buffer(true, count);
        for (int i = 0; i < count; i++) {
            in.putFloat(i * 4, value(seed, comm.rank(), 4, i));
        }
        ByteBuffer out = buffer(true, count);
        comm.broadcast(HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(out, DataType.FLOAT32), count, root);
        for (int i = 0; i < count; i++) {
            assertEquals(value(seed, root, 4, i), out.getFloat(i * 4), "broadcast from rank " + root);
        }
    }
}
