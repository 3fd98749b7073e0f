package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Communicators formed and closed one after another, as a job that builds a communicator per step or per model
 * would: each does a large all-reduce (the slots, and single copy where the JDK has it) and a small one (the
 * boxes). No segment stays mapped once its communicator is closed, and descriptors, threads and direct memory do
 * not grow from the tenth to the last.
 */
class ShmLifecycleTest {

    private static final int RANKS = 2;
    private static final int ROUNDS = 150;

    @Test
    void communicatorsFormedAndClosedInALoopLeaveNothingBehind() throws IOException {
        long[] mappedAt10 = new long[1];
        long[] descriptorsAt10 = new long[1];
        int[] threadsAt10 = new int[1];
        long[] directAt10 = new long[1];
        for (int round = 0; round < ROUNDS; round++) {
            int port = ShmGroup.freePort();
            int count = 300_000 + round; // 1.2 MB of floats: past every single-copy threshold but the all-reduce's
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
                    assertTrue(mappedSegments() > 0, "no segment in this process's memory map while one is open");
                    float[] small = {rank, 1};
                    comm.allReduce(HostBuffer.of(small), ReduceOp.MAX);
                    assertEquals(RANKS - 1, small[0]);
                }
                return null;
            });
            if (round == 9) {
                System.gc();
                sleep(200);
                mappedAt10[0] = mappedSegments();
                descriptorsAt10[0] = descriptors();
                threadsAt10[0] = Thread.activeCount();
                directAt10[0] = directBytes();
            }
        }
        long mapped = mappedSegments();
        // the last round's store lingers a few seconds for late readers of failure reports: wait out its thread
        long fds = descriptors();
        for (long until = System.nanoTime() + 10_000_000_000L; System.nanoTime() < until
                && (Thread.activeCount() > threadsAt10[0] || descriptors() > descriptorsAt10[0]); ) {
            sleep(100);
        }
        // a closed communicator's direct buffers (and each round's data) are garbage, which the JDK frees only as it
        // collects them: collect, and give the cleaner a moment
        for (long until = System.nanoTime() + 10_000_000_000L; System.nanoTime() < until
                && directBytes() > directAt10[0] + 16L * 1024 * 1024; ) {
            System.gc();
            sleep(100);
        }
        System.out.printf("%d communicators: mapped segments %d -> %d, descriptors %d -> %d, threads %d -> %d, "
                + "direct bytes %d -> %d (after the tenth, after the last)%n", ROUNDS, mappedAt10[0], mapped,
                descriptorsAt10[0], descriptors(), threadsAt10[0], Thread.activeCount(), directAt10[0], directBytes());
        // unmapped as each communicator closes, not left for a collection to find
        assertEquals(0, mapped, "segments of closed communicators stay mapped");
        assertTrue(descriptors() <= descriptorsAt10[0], "descriptors grew: " + descriptorsAt10[0] + " -> " + fds);
        assertTrue(Thread.activeCount() <= threadsAt10[0], "threads grew: " + threadsAt10[0] + " -> "
                + Thread.activeCount());
        assertTrue(directBytes() <= directAt10[0] + 16L * 1024 * 1024, "direct memory grew: " + directAt10[0]
                + " -> " + directBytes());
    }

    /** Lines of this process's memory map that are a communicator's segment (mapped, its name unlinked). */
    private static long mappedSegments() throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains("/jcoll-")).count();
        }
    }

    private static long descriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    private static long directBytes() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        return -1;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
