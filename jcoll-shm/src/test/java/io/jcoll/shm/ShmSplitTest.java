package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.CommunicatorClosedException;
import io.jcoll.testing.Ranks;
import io.jcoll.testing.Resources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sub-communicators over shared memory: each gets a segment of its own, usable from its own thread beside its
 * parent's, closed with the parent; a thousand of them made and closed leave no mapping, descriptor, thread or
 * file behind.
 */
class ShmSplitTest {

    @Test
    void rowsAndColumnsRunConcurrentlyAndCloseWithTheirParent() {
        int n = 4;
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_SHM_SLOT", "4K"))) {
                Communicator row = comm.split(rank / 2, rank).orElseThrow();
                Communicator column = comm.split(rank % 2, rank).orElseThrow();
                assertEquals("shm", row.transport().name());
                Thread other = new Thread(() -> {
                    for (int i = 0; i < 200; i++) {
                        double[] v = new double[3001];
                        java.util.Arrays.fill(v, rank);
                        column.allReduce(HostBuffer.of(v), ReduceOp.SUM);
                        assertEquals(rank % 2 + (rank % 2 + 2), v[3000]);
                    }
                });
                other.start();
                for (int i = 0; i < 200; i++) {
                    double[] v = new double[2999];
                    java.util.Arrays.fill(v, rank);
                    row.allReduce(HostBuffer.of(v), ReduceOp.SUM);
                    assertEquals(2 * (rank / 2) * 2 + 1, v[0]);
                }
                other.join();
                comm.close();
                assertThrows(CommunicatorClosedException.class, row::barrier);
                return null;
            }
        });
    }

    @Test
    void aThousandSplitsLeaveNothingBehind(@TempDir Path dir) throws Exception {
        int n = 2;
        int port = ShmGroup.freePort();
        // crews of 2 with small shares: every split starts helper threads, and its close must stop them
        Map<String, String> settings = Map.of("JCOLL_SHM_DIR", dir.toString(), "JCOLL_SHM_THREADS", "2",
                "JCOLL_SHM_SHARE_MIN", "64");
        Ranks.all(n, Duration.ofMinutes(4), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, settings)) {
                for (int i = 0; i < 20; i++) { // warm: the thread pools and classes every split uses exist
                    comm.split(0, rank).orElseThrow().close();
                }
                comm.barrier();
                long threads = Thread.activeCount();
                long descriptors = Resources.now().fileDescriptors();
                long mappings = SegmentFiles.mappings();
                for (int i = 0; i < 1000; i++) {
                    try (Communicator sub = comm.split(0, rank).orElseThrow()) {
                        // past the one-step size, so that the chunks' copies are shared
                        ByteBuffer bytes = ByteBuffer.allocateDirect(4 * 8192).order(ByteOrder.nativeOrder());
                        bytes.putFloat(4 * 8191, rank + 1);
                        sub.allReduce(HostBuffer.of(bytes, DataType.FLOAT32), ReduceOp.SUM);
                        assertEquals(3f, bytes.getFloat(4 * 8191));
                    }
                }
                comm.barrier();
                assertTrue(Thread.activeCount() <= threads + 1, "threads " + threads + " -> " + Thread.activeCount());
                assertTrue(Resources.now().fileDescriptors() <= descriptors + 4, "descriptors grew");
                assertTrue(SegmentFiles.mappings() <= mappings, "segment mappings " + mappings + " -> " + SegmentFiles.mappings());
                return null;
            }
        });
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(), files.toList());
        }
    }
}
