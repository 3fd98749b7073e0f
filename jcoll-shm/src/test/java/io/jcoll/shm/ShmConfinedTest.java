package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.Request;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.CommunicatorClosedException;
import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.testing.JsonReader;
import io.jcoll.testing.Ranks;
import io.jcoll.trace.TraceReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Communicators confined to one thread ({@code JCOLL_THREADS=one}), whose calls take no lock and whose small calls
 * read no clock: right results with blocking and asynchronous calls mixed and with a split, another thread's call
 * refused without harm, a small call's timeout still kept (from its first wait that blocks), an abort from another
 * thread ending the owner's wait, and a bad value refused before anything is opened.
 */
class ShmConfinedTest {

    private static final Map<String, String> CONFINED = Map.of("JCOLL_THREADS", "one");

    /**
     * Three ranks, fresh random inputs, counts 0, 1, a prime and ones not divisible by the ranks, through the boxes
     * (up to 4 KB) and the slots; every third call asynchronous (it runs on the worker, and the next blocking call
     * waits behind it there), and the same on a sub-communicator of two ranks; against a double-precision loop.
     */
    @Test
    void blockingAndAsynchronousCallsMatchAPlainLoop() {
        int n = 3;
        int[] counts = {0, 1, 13, 1000, 1025, 40_009};
        int port = ShmGroup.freePort();
        long seed = new SplittableRandom().nextLong();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, withSmallSlots())) {
                int call = 0;
                for (int count : counts) {
                    allReduceMatchesTheLoop(comm, n, count, seed + call, call++ % 3 == 2);
                    broadcastMatchesTheRoot(comm, count, (call % n), seed + call, call++ % 3 == 2);
                }
                Communicator pair = comm.split(rank == 1 ? 1 : 0, rank).orElseThrow();
                for (int count : counts) {
                    allReduceMatchesTheLoop(pair, pair.size(), count, seed + 100 + call, call++ % 3 == 2);
                }
                return null;
            }
        });
    }

    private static Map<String, String> withSmallSlots() {
        Map<String, String> settings = new HashMap<>(CONFINED);
        settings.put("JCOLL_SHM_SLOT", "4K");
        return settings;
    }

    private static void allReduceMatchesTheLoop(Communicator comm, int n, int count, long seed, boolean async) {
        double[][] inputs = new double[n][];
        for (int r = 0; r < n; r++) {
            inputs[r] = randoms(count, seed * 31 + r);
        }
        double[] data = inputs[comm.rank()].clone();
        if (async) {
            Request request = comm.allReduceAsync(HostBuffer.of(data), HostBuffer.of(data), count, ReduceOp.SUM);
            request.await();
        } else {
            comm.allReduce(HostBuffer.of(data), ReduceOp.SUM);
        }
        for (int i = 0; i < count; i++) {
            double expected = 0;
            for (int r = 0; r < n; r++) {
                expected += inputs[r][i];
            }
            assertEquals(expected, data[i], 1e-9 * n, "allReduce of " + count + ", element " + i);
        }
    }

    private static void broadcastMatchesTheRoot(Communicator comm, int count, int root, long seed, boolean async) {
        double[] sent = randoms(count, seed);
        double[] data = comm.rank() == root ? sent.clone() : new double[count];
        if (async) {
            comm.broadcastAsync(HostBuffer.of(data), HostBuffer.of(data), count, root).await();
        } else {
            comm.broadcast(HostBuffer.of(data), root);
        }
        for (int i = 0; i < count; i++) {
            assertEquals(sent[i], data[i], "broadcast of " + count + " from " + root + ", element " + i);
        }
    }

    private static double[] randoms(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        double[] v = new double[count];
        for (int i = 0; i < count; i++) {
            v[i] = random.nextDouble(-1, 1);
        }
        return v;
    }

    /**
     * A call from a thread other than the first that called is refused, naming both threads and the setting, as are
     * a close and the end of the owner's open group from it; nothing moved, so the ranks go on with the owner's calls,
     * its group first.
     */
    @Test
    void anotherThreadsCallIsRefusedAndTheCommunicatorGoesOn() {
        int n = 2;
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, CONFINED)) {
                float[] v = {rank, 1};
                comm.allReduce(HostBuffer.of(v), ReduceOp.SUM); // this thread becomes the owner
                double[] grouped = {rank, 10};
                io.jcoll.Group group = comm.group().allReduce(HostBuffer.of(grouped), HostBuffer.of(grouped), 2,
                        ReduceOp.SUM);
                AtomicReference<Throwable> refused = new AtomicReference<>();
                AtomicReference<Throwable> closeRefused = new AtomicReference<>();
                AtomicReference<Throwable> groupCloseRefused = new AtomicReference<>();
                AtomicReference<Throwable> groupEndRefused = new AtomicReference<>();
                Thread other = new Thread(() -> {
                    refused.set(catching(() -> comm.allReduce(HostBuffer.of(new float[3]), ReduceOp.SUM)));
                    closeRefused.set(catching(comm::close));
                    groupCloseRefused.set(catching(group::close));
                    groupEndRefused.set(catching(group::end));
                }, "intruder-" + rank);
                other.start();
                other.join();
                InvalidArgumentException e = assertInstanceOf(InvalidArgumentException.class, refused.get());
                assertTrue(e.getMessage().contains("\"rank-" + rank + "\"") && e.getMessage().contains("\"intruder-"
                        + rank + "\"") && e.getMessage().contains("JCOLL_THREADS=one"), e.getMessage());
                assertInstanceOf(InvalidArgumentException.class, closeRefused.get());
                assertInstanceOf(InvalidArgumentException.class, groupCloseRefused.get());
                assertInstanceOf(InvalidArgumentException.class, groupEndRefused.get());
                group.end().await(); // the owner's group was left as it was: its call runs now, on every rank
                assertEquals(1.0, grouped[0]);
                assertEquals(20.0, grouped[1]);
                float[] w = {rank + 1, 2, 3};
                comm.allReduce(HostBuffer.of(w), ReduceOp.SUM);
                assertEquals(3f, w[0]);
                assertEquals(6f, w[2]);
                return null;
            }
        });
    }

    /**
     * A communicator split from a confined one is confined to the first thread that calls it, which need not be the
     * parent's: a column used on a thread of its own beside the parent's row. The parent's close, on the parent's
     * thread, must not pull the column's transport from under that thread: it fails the column, whose next call is
     * refused as closed, and the column's own close on its thread releases it.
     */
    @Test
    void aSplitIsConfinedToItsFirstCallerAndClosesWithItsParent() {
        int n = 4;
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            Communicator comm = ShmGroup.join(rank, n, port, CONFINED);
            Communicator row = comm.split(rank / 2, rank).orElseThrow();
            Communicator column = comm.split(rank % 2, rank).orElseThrow();
            CountDownLatch columnDone = new CountDownLatch(1);
            CountDownLatch parentClosed = new CountDownLatch(1);
            AtomicReference<Throwable> afterClose = new AtomicReference<>();
            AtomicReference<Throwable> columnFailed = new AtomicReference<>(); // reported here, not lost with its thread
            Thread other = new Thread(() -> columnFailed.set(catching(() -> {
                try {
                    for (int i = 0; i < 200; i++) {
                        double[] v = new double[1 + i % 600];
                        java.util.Arrays.fill(v, rank);
                        column.allReduce(HostBuffer.of(v), ReduceOp.SUM);
                        assertEquals(rank % 2 + (rank % 2 + 2), v[v.length - 1]);
                    }
                } finally {
                    columnDone.countDown();
                }
                awaitQuietly(parentClosed);
                afterClose.set(catching(column::barrier));
                column.close();
            })), "column-" + rank);
            other.start();
            for (int i = 0; i < 200; i++) {
                double[] v = new double[1 + i % 700];
                java.util.Arrays.fill(v, rank);
                row.allReduce(HostBuffer.of(v), ReduceOp.SUM);
                assertEquals(2 * (rank / 2) * 2 + 1, v[v.length - 1]);
            }
            columnDone.await();
            InvalidArgumentException taken = assertInstanceOf(InvalidArgumentException.class,
                    catching(column::barrier));
            assertTrue(taken.getMessage().contains("\"column-" + rank + "\""), taken.getMessage());
            comm.close();
            parentClosed.countDown();
            other.join();
            if (columnFailed.get() != null) {
                throw new AssertionError("the column's thread failed: " + columnFailed.get(), columnFailed.get());
            }
            CommunicatorClosedException closed = assertInstanceOf(CommunicatorClosedException.class, afterClose.get());
            assertTrue(closed.getMessage().contains("parent was closed"), closed.getMessage());
            assertThrows(CommunicatorClosedException.class, row::barrier);
            return null;
        });
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Throwable catching(Runnable r) {
        try {
            r.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /**
     * A small call reads no clock when it is issued, confined or not (from any thread, where no other call runs);
     * its limit runs from its first wait that blocks. Rank 1 never calls: rank 0's 8-byte all-reduce must still
     * fail at JCOLL_TIMEOUT (1 s), not wait for ever; its flight-recorder file shows the call started, with no
     * times rather than made-up ones, and {@code jcoll trace} says rank 0 was running it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"one", "any"})
    void aSmallCallThatIsNeverAnsweredStillTimesOut(String threads, @TempDir Path traces) throws IOException {
        int n = 2;
        int port = ShmGroup.freePort();
        Map<String, String> settings = Map.of("JCOLL_THREADS", threads, "JCOLL_TIMEOUT", "1s",
                "JCOLL_TRACE_DIR", traces.toString());
        CountDownLatch failed = new CountDownLatch(1);
        long[] waited = new long[1];
        List<Ranks.Outcome<Long>> outcomes = Ranks.outcomes(n, Duration.ofSeconds(60), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, settings)) {
                if (rank == 1) {
                    failed.await();
                    return 0L;
                }
                long start = System.nanoTime();
                try {
                    comm.allReduce(HostBuffer.of(new double[1]), ReduceOp.SUM);
                } finally {
                    waited[0] = System.nanoTime() - start;
                    failed.countDown();
                }
                return waited[0];
            }
        });
        Throwable e = outcomes.get(0).error();
        CollectiveTimeoutException timeout = assertInstanceOf(CollectiveTimeoutException.class, e);
        assertEquals(1, timeout.peer(), timeout.getMessage());
        // within the bound: JCOLL_TIMEOUT, and at most a second more
        assertTrue(waited[0] >= 900_000_000L && waited[0] <= 2_000_000_000L, "failed after " + waited[0] / 1e6 + " ms");

        List<Path> files;
        try (var listing = Files.list(traces)) {
            files = listing.filter(p -> p.getFileName().toString().startsWith("jcoll-trace-rank0")).toList();
        }
        assertEquals(1, files.size(), "rank 0's flight-recorder file: " + files);
        Map<?, ?> world = (Map<?, ?>) ((List<?>) ((Map<?, ?>) JsonReader.parse(Files.readString(files.get(0))))
                .get("communicators")).get(0);
        Map<?, ?> call = (Map<?, ?>) ((List<?>) world.get("calls")).get(0);
        assertEquals("allReduce #0 (1 x float64, sum)", call.get("call"));
        assertEquals("started", call.get("state"), "written as the timeout was found");
        assertNull(call.get("issued_us"), "not timed: " + call);
        assertNull(call.get("started_us"), "not timed: " + call);
        String report = TraceReport.read(traces).toText();
        // running it, for no made-up time; rank 1, which never failed, wrote no file
        assertTrue(report.contains("rank 0: running it\n") && report.contains("no file from rank 1"), report);
    }

    /**
     * A watchdog thread's abort() ends the owner's wait at once (it holds no lock that would tell the watchdog
     * whether a call runs, so the abort interrupts and the owner releases), and the peer is told; the owner's close
     * then leaves no file behind.
     */
    @Test
    void anAbortFromAnotherThreadEndsTheOwnersWait(@TempDir Path dir) throws Exception {
        int n = 2;
        int port = ShmGroup.freePort();
        Map<String, String> settings = new HashMap<>(CONFINED);
        settings.put("JCOLL_SHM_DIR", dir.toString());
        // rank 1 stays out of the call until rank 0's attempt has ended: had it posted its part, rank 0's call could
        // complete before its thread saw the abort, which fails the calls after it rather than one nearly done
        CountDownLatch ownerDone = new CountDownLatch(1);
        List<Ranks.Outcome<Long>> outcomes = Ranks.outcomes(n, Duration.ofSeconds(60), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, settings)) {
                comm.barrier();
                if (rank == 1) {
                    ownerDone.await();
                    // rank 0 posted its part before it waited, so this call may still complete; the next cannot
                    comm.allReduce(HostBuffer.of(new double[1]), ReduceOp.SUM);
                    comm.barrier();
                    return 0L;
                }
                Thread watchdog = new Thread(() -> {
                    sleep(300);
                    comm.abort();
                }, "watchdog");
                watchdog.start();
                long start = System.nanoTime();
                try { // rank 1 is not in the call: only the abort ends this wait
                    comm.allReduce(HostBuffer.of(new double[1]), ReduceOp.SUM);
                } finally {
                    long waited = System.nanoTime() - start;
                    ownerDone.countDown();
                    assertTrue(waited < Duration.ofSeconds(10).toNanos(), "the owner waited " + waited / 1e6 + " ms");
                }
                return 0L;
            }
        });
        JcollException owner = assertInstanceOf(JcollException.class, outcomes.get(0).error());
        assertTrue(owner.getMessage().contains("abort"), owner.getMessage());
        Throwable peer = outcomes.get(1).error();
        assertInstanceOf(PeerFailureException.class, peer);
        assertTrue(peer.getMessage().contains("rank 0"), peer.getMessage());
        try (var left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "files left in the segment directory");
        }
    }

    /** After an abort from another thread, the owner's next call is refused as closed. */
    @Test
    void theOwnersNextCallAfterAnAbortIsRefused() {
        int port = ShmGroup.freePort();
        Ranks.all(1, Duration.ofSeconds(30), rank -> {
            try (Communicator comm = ShmGroup.join(0, 1, port, CONFINED)) {
                comm.barrier();
                Thread watchdog = new Thread(comm::abort, "watchdog");
                watchdog.start();
                watchdog.join();
                assertThrows(CommunicatorClosedException.class, comm::barrier);
                return null;
            }
        });
    }

    @Test
    void aValueOtherThanOneOrAnyIsRefusedBeforeAnythingOpens() {
        BootstrapException e = assertThrows(BootstrapException.class,
                () -> ShmGroup.join(0, 1, ShmGroup.freePort(), Map.of("JCOLL_THREADS", "two")));
        assertTrue(e.getMessage().contains("JCOLL_THREADS=two"), e.getMessage());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
