package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.exceptions.JcollException;
import io.jcoll.testing.Commands;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Buffers from {@link io.jcoll.SharedMemory}: single copy reads them through each rank's own mapping of the
 * owner's file instead of with process_vm_readv, and says so by the bytes it counts ({@link PeerMemory#mappedBytes}).
 * Results are checked element by element against the reference ({@link SharedCalls}); ranks as threads, and a rank
 * in a process of its own reading a thread rank's memory and back. JDK 17-21 have no single copy: skipped there.
 */
class SharedMemoryReadTest {

    private static final int[] COUNTS = {0, 1, 2, 13, 97, 1000, 4099};
    /** Single copy for every call it can take, no boxes: every size of {@link #COUNTS} reads its peers. */
    private static final Map<String, String> EVERY_CALL = Map.of("JCOLL_SHM_SINGLE_COPY_MIN", "1",
            "JCOLL_SHM_SINGLE_COPY_GATHER_MIN", "1", "JCOLL_SHM_SINGLE_COPY_BROADCAST_MIN", "1",
            "JCOLL_SHM_SINGLE_COPY_REDUCE_MIN", "1", "JCOLL_SHM_BOX", "0", "JCOLL_SHM_THREADS", "1");

    /**
     * Every collective single copy takes, every count, in and out of place, every root: shared buffers are read
     * through mappings (at least every all-gather's blocks), ordinary ones are not, and both are right.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void sharedBuffersAreReadThroughMappings(int n) {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        long seed = new SplittableRandom().nextLong();
        int port = ShmGroup.freePort();
        long before = PeerMemory.mappedBytes();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, EVERY_CALL)) {
                assertTrue(comm.network().summary().contains("buffers from io.jcoll.SharedMemory read through "
                        + "mappings"), comm.network().summary());
                SharedCalls.run(comm, seed, COUNTS, true);
                return null;
            }
        });
        long gathered = 0; // what the all-gathers alone read across: every rank every peer's block
        for (int count : COUNTS) {
            gathered += (long) n * (n - 1) * count * 4;
        }
        long mapped = PeerMemory.mappedBytes() - before;
        assertTrue(mapped >= gathered, mapped + " bytes read through mappings, fewer than the all-gathers' " + gathered);

        long ordinary = PeerMemory.mappedBytes();
        int port2 = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port2, EVERY_CALL)) {
                SharedCalls.run(comm, seed ^ 1, COUNTS, false);
                return null;
            }
        });
        assertEquals(ordinary, PeerMemory.mappedBytes(), "ordinary direct buffers were read through a mapping");
    }

    /**
     * At the default sizes, an all-reduce below 8 MB, and a reduce-scatter, read their peers only where every buffer
     * (a reduce-scatter's inputs) is shared, else the slots take them after the phase in which the ranks learn as
     * much: 2 ranks alone, about 1 MB, a prime count; each op alone, in place and out, then every op.
     */
    @Test
    void midSizedAllReducesReadSharedBuffersOnly() {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int n = 2;
        int[] counts = {262_147};
        int port = ShmGroup.freePort();
        long seed = new SplittableRandom().nextLong();
        Map<String, String> defaults = Map.of("JCOLL_SHM_THREADS", "1");
        long before = PeerMemory.mappedBytes();
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, defaults)) {
                assertTrue(comm.network().summary().contains(
                        "and all-reduces and reduce-scatters from 128 KiB where all are"),
                        comm.network().summary());
                for (boolean shared : new boolean[] {true, false, true}) {
                    for (int op = 0; op < 3; op++) {
                        comm.barrier(); // no rank's reads of the round before are counted in this one
                        long start = PeerMemory.mappedBytes();
                        for (boolean inPlace : new boolean[] {false, true}) {
                            switch (op) {
                                case 0 -> SharedCalls.allReduce(comm, seed, counts[0], shared, inPlace);
                                case 1 -> SharedCalls.reduceScatter(comm, seed, counts[0] / n, shared, inPlace);
                                default -> SharedCalls.run(comm, seed, counts, shared);
                            }
                        }
                        comm.barrier(); // every rank's reads of this round are counted
                        long read = PeerMemory.mappedBytes() - start;
                        assertTrue(shared ? read > 0 : read == 0, read + " bytes read through mappings, op " + op
                                + ", shared " + shared);
                    }
                }
                return null;
            }
        });
        assertTrue(PeerMemory.mappedBytes() - before >= 2L * counts[0] * 4, "the all-reduces read little");
    }

    /**
     * Rank 1 in a process of its own, rank 0 a thread here: each maps the other's shared buffers through
     * {@code /proc/<pid>/fd} and reads them; every result checked on both; nothing left in the directory.
     */
    @Test
    void aProcessRankAndAThreadRankReadEachOthersSharedBuffers(@TempDir Path dir) throws Exception {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        long seed = new SplittableRandom().nextLong();
        int port = ShmGroup.freePort();
        Map<String, String> settings = new HashMap<>(EVERY_CALL);
        settings.put("JCOLL_SHM_DIR", dir.toString());
        int[] counts = {1, 97, 4099, 65_537};
        List<String> command = new ArrayList<>(List.of(Commands.java(), "-Xmx256m", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), SharedMemoryRank.class.getName(), Long.toString(seed)));
        for (int c : counts) {
            command.add(Integer.toString(c));
        }
        Map<String, String> env = new HashMap<>(settings);
        env.putAll(Map.of("JCOLL_RANK", "1", "JCOLL_WORLD_SIZE", "2", "JCOLL_MASTER_ADDR", "127.0.0.1",
                "JCOLL_MASTER_PORT", Integer.toString(port), "JCOLL_TOKEN", ShmGroup.TOKEN, "JCOLL_TRANSPORT", "shm",
                "JCOLL_TIMEOUT", "60s"));
        CompletableFuture<Commands.Result> processRank = CompletableFuture.supplyAsync(() -> {
            try {
                return Commands.run(command, env, 180);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        long before = PeerMemory.mappedBytes();
        try (Communicator comm = ShmGroup.join(0, 2, port, settings)) {
            SharedCalls.run(comm, seed, counts, true);
        }
        Commands.Result result = processRank.get();
        assertEquals(0, result.exit(), result.output());
        assertTrue(result.output().contains("DONE"), result.output());
        long theirs = Long.parseLong(result.output().lines().filter(l -> l.startsWith("MAPPED ")).findFirst()
                .orElseThrow().substring(7));
        long gathered = 0;
        for (int c : counts) {
            gathered += c * 4L;
        }
        assertTrue(theirs >= gathered, "the process rank read " + theirs + " bytes through mappings: " + result.output());
        assertTrue(PeerMemory.mappedBytes() - before >= gathered, "this rank read little through mappings");
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "a file was left in the directory");
        }
    }

    /**
     * Another process (here: this one, through the same {@code /proc} door) truncates rank 0's shared input after
     * rank 1 has mapped it: the next all-gather fails on both ranks with an exception that names the truncation,
     * and the JVM goes on. Repeated: the fault comes back from the JVM asynchronously.
     */
    @RepeatedTest(5)
    void aTruncatedSharedBufferIsNamedOnEveryRank() {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
        int n = 2;
        int count = 100_003;
        int port = ShmGroup.freePort();
        List<Ranks.Outcome<String>> outcomes = Ranks.outcomes(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, EVERY_CALL)) {
                ByteBuffer in = SharedCalls.floats(count, true);
                ByteBuffer out = SharedCalls.floats((long) count * n, true);
                comm.allGather(HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(out, DataType.FLOAT32), count);
                if (rank == 0) {
                    OwnRegions.Found region = OwnRegions.find(ProcessVm.address(in), 1);
                    try (FileChannel file = FileChannel.open(Path.of("/proc/self/fd/" + region.fd()),
                            StandardOpenOption.WRITE)) {
                        file.truncate(0);
                    }
                }
                comm.barrier();
                JcollException e = assertThrows(JcollException.class, () -> comm.allGather(
                        HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(out, DataType.FLOAT32), count));
                return e.getMessage();
            }
        });
        for (Ranks.Outcome<String> o : outcomes) {
            String message = o.get();
            System.out.println("truncated shared buffer: rank " + o.rank() + ": " + message);
            assertTrue(message.contains("truncated"), message);
        }
    }
}
