package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.testing.Ranks;
import io.jcoll.testing.Resources;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Communicators formed and closed one after another, as a job that builds a communicator per step or per model
 * would: each does a large all-reduce (the slots, or single copy where the JDK has it) and a small one (the
 * boxes). No segment stays mapped once its communicator is closed, and descriptors, threads and direct memory do
 * not grow from the tenth to the last.
 */
class ShmLifecycleTest {

    private static final int RANKS = 2;
    private static final int ROUNDS = 150;
    /** What the last round may hold beyond the tenth: collected garbage is freed by the cleaner, not at once. */
    private static final long DIRECT_SLACK = 16L << 20;

    @Test
    void communicatorsFormedAndClosedInALoopLeaveNothingBehind() throws IOException, InterruptedException {
        Resources afterTenth = null;
        for (int round = 0; round < ROUNDS; round++) {
            int port = ShmGroup.freePort();
            int count = 300_000 + round; // 1.2 MB of floats, read across (from 1 MB, below) where the JDK can
            Ranks.all(RANKS, Duration.ofMinutes(1), rank -> {
                try (Communicator comm = ShmGroup.join(rank, RANKS, port,
                        Map.of("JCOLL_SHM_SINGLE_COPY_REDUCE_MIN", "1M"))) {
                    ByteBuffer data = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
                    for (int i = 0; i < count; i++) {
                        data.putFloat(i * 4, rank + i % 7);
                    }
                    comm.allReduce(HostBuffer.of(data, DataType.FLOAT32), ReduceOp.SUM);
                    for (int i = 0; i < count; i += 997) {
                        assertEquals(1 + 2 * (i % 7), data.getFloat(i * 4), "element " + i);
                    }
                    assertTrue(SegmentFiles.mappings() > 0, "no segment in this process's memory map while one is open");
                    float[] small = {rank, 1};
                    comm.allReduce(HostBuffer.of(small), ReduceOp.MAX);
                    assertEquals(RANKS - 1, small[0]);
                }
                return null;
            });
            if (round == 9) {
                afterTenth = collected(Long.MAX_VALUE);
            }
        }
        // unmapped as each communicator closes, not left for a collection to find
        long mapped = SegmentFiles.mappings();
        // the last round's store lingers a few seconds for late readers of failure reports: wait out its thread
        Resources last = Resources.now();
        for (long until = System.nanoTime() + 10_000_000_000L; System.nanoTime() < until
                && (last.threads() > afterTenth.threads() || last.fileDescriptors() > afterTenth.fileDescriptors()); ) {
            Thread.sleep(100);
            last = Resources.now();
        }
        last = collected(afterTenth.directBytes() + DIRECT_SLACK);
        System.out.printf("%d communicators: mapped segments %d after the last; threads, descriptors, direct bytes "
                + "%s after the tenth, %s after the last%n", ROUNDS, mapped, afterTenth, last);
        assertEquals(0, mapped, "segments of closed communicators stay mapped");
        assertTrue(last.fileDescriptors() <= afterTenth.fileDescriptors(), "descriptors grew: " + afterTenth + " -> "
                + last);
        assertTrue(last.threads() <= afterTenth.threads(), "threads grew: " + afterTenth + " -> " + last);
        assertTrue(last.directBytes() <= afterTenth.directBytes() + DIRECT_SLACK, "direct memory grew: " + afterTenth
                + " -> " + last);
    }

    /**
     * Resources after a collection, and more until direct memory is down to {@code directBytes} or 10 s have passed:
     * a closed communicator's direct buffers (and each round's data) are garbage, which the JDK frees only as it
     * collects them, and then on its cleaner's thread.
     */
    private static Resources collected(long directBytes) throws InterruptedException {
        long until = System.nanoTime() + 10_000_000_000L;
        Resources r;
        do {
            System.gc();
            Thread.sleep(100);
            r = Resources.now();
        } while (r.directBytes() > directBytes && System.nanoTime() < until);
        return r;
    }
}
