package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;
import io.jcoll.exceptions.TransportUnavailableException;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a segment comes to be and goes: where the directory cannot serve, {@code auto} takes TCP and says why, and
 * {@code shm} asked for by name fails clearly; ranks that cannot share a file (another host, another directory,
 * whatever their host names say) fall back together; files are owner-only, unlinked once mapped, and a stale one
 * of a killed job is swept; calls that disagree fail on both ranks before either reads the other's data.
 */
class ShmSetupTest {

    @Test
    void aSegmentIsOwnerOnlyAndGoneOnceEveryRankHasMappedIt(@TempDir Path dir) throws Exception {
        int n = 3;
        int port = ShmGroup.freePort();
        List<Set<PosixFilePermission>> modes = Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_SHM_DIR", dir.toString()))) {
                assertEquals("shm", comm.transport().name());
                comm.barrier();
                try (Stream<Path> files = Files.list(dir)) {
                    assertEquals(List.of(), files.toList(), "the segment's name outlived the setup");
                }
                // the ranks are threads of one process: the descriptor found may be another rank's, so none closes
                // its communicator (and that descriptor) before every rank has read one
                Set<PosixFilePermission> mode = Files.getPosixFilePermissions(SegmentFiles.descriptor());
                comm.barrier();
                return mode;
            }
        });
        for (Set<PosixFilePermission> mode : modes) {
            assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE), mode);
        }
    }

    @Test
    void aStaleSegmentOfAKilledJobIsSweptAndAFreshNameUsed(@TempDir Path dir) throws Exception {
        long dead = deadPid();
        Path stale = dir.resolve(String.format("jcoll-%d-%016x", dead, 0x1234L));
        Path young = dir.resolve(String.format("jcoll-%d-%016x", dead, 0x5678L));
        Path foreign = dir.resolve("jcoll-notes.txt");
        for (Path p : List.of(stale, young, foreign)) {
            Files.write(p, new byte[4096]);
        }
        Files.setLastModifiedTime(stale, FileTime.from(Instant.now().minus(Duration.ofMinutes(5))));
        Files.setLastModifiedTime(foreign, FileTime.from(Instant.now().minus(Duration.ofMinutes(5))));
        int n = 2;
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_SHM_DIR", dir.toString()))) {
                float[] v = {rank + 1};
                comm.allReduce(HostBuffer.of(v), ReduceOp.SUM);
                assertEquals(3f, v[0]);
                return null;
            }
        });
        assertTrue(Files.notExists(stale), "a stale segment of a dead process was left");
        assertTrue(Files.exists(young), "a segment touched within the last minute is not stale yet");
        assertTrue(Files.exists(foreign), "a file not named as jcoll names segments is not jcoll's to remove");
    }

    @Test
    void anUnusableDirectoryPassesShmOverUnderAutoAndFailsItWhenAskedFor(@TempDir Path dir) throws Exception {
        Path notADirectory = Files.write(dir.resolve("file"), new byte[1]);
        passedOverUnderAutoAndRefusedByName(Map.of("JCOLL_SHM_DIR", notADirectory.toString()), "is not a directory");
    }

    /** Two ranks with {@code settings}: {@code auto} takes TCP giving {@code why}; {@code shm} fails on both saying it. */
    private static void passedOverUnderAutoAndRefusedByName(Map<String, String> settings, String why) {
        int n = 2;
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.builder(rank, n, port, "auto", settings).build()) {
                assertEquals("tcp", comm.transport().name());
                assertTrue(comm.transport().rejected().stream().anyMatch(r -> r.startsWith("shm passed over")
                        && r.contains(why)), comm.transport().toString());
                return null;
            }
        });
        int port2 = ShmGroup.freePort();
        List<Throwable> failures = Ranks.all(n, Duration.ofMinutes(1), rank -> assertThrows(
                TransportUnavailableException.class, () -> ShmGroup.join(rank, n, port2, settings).close()));
        for (Throwable t : failures) {
            assertTrue(t.getMessage().contains("JCOLL_TRANSPORT=shm") && t.getMessage().contains(why),
                    t.getMessage());
        }
    }

    /**
     * A real full tmpfs (256 KiB, mounted for the test; root only, as CI and the development machines run): the
     * probe sees no room, so {@code auto} takes TCP saying why and {@code shm} fails naming the space; and a segment
     * whose space went between the probe and its creation (another process filled the tmpfs) fails with the
     * system's "no space" at creation, not with SIGBUS at a later touch, and leaves no file.
     */
    @Test
    void aFullTmpfsPassesShmOverAndACreationThatRunsOutOfSpaceLeavesNothing(@TempDir Path dir) throws Exception {
        onTmpfs(dir.resolve("small-shm"), "size=256k,mode=0700", mount -> {
            passedOverUnderAutoAndRefusedByName(Map.of("JCOLL_SHM_DIR", mount.toString()),
                    "KiB free where a segment needs");

            Layout twoRanks = Layout.from(io.jcoll.spi.Settings.of(Map.of()), 2, Long.MAX_VALUE, false);
            assertTrue(twoRanks.totalBytes() > 256 << 10, "the segment must not fit: " + twoRanks.totalBytes());
            java.io.IOException full = assertThrows(java.io.IOException.class,
                    () -> Segment.create(mount.resolve("jcoll-1-0123456789abcdef"), twoRanks, 42));
            assertTrue(String.valueOf(full.getMessage()).contains("No space left on device"), String.valueOf(full));
            try (Stream<Path> left = Files.list(mount)) {
                assertEquals(List.of(), left.toList(), "a file was left in the full tmpfs");
            }
        });
    }

    /**
     * A tmpfs mounted read-only (root only, as CI and the development machines run; root may write anywhere else,
     * so this is the directory no rank can write): {@code auto} takes TCP saying why, {@code shm} fails saying it.
     */
    @Test
    void aReadOnlyDirectoryPassesShmOverUnderAutoAndFailsItWhenAskedFor(@TempDir Path dir) throws Exception {
        onTmpfs(dir.resolve("read-only-shm"), "ro,size=4m", mount -> passedOverUnderAutoAndRefusedByName(
                Map.of("JCOLL_SHM_DIR", mount.toString()), mount + " (JCOLL_SHM_DIR) is on a read-only file system"));
    }

    /** What a test does with a tmpfs mounted where it says. */
    private interface OnMount {
        void run(Path mount) throws Exception;
    }

    /**
     * Mounts a tmpfs with {@code options} at {@code mount} (made here), runs {@code test} on it and unmounts it;
     * skipped where the tests do not run as root or the mount fails.
     */
    private static void onTmpfs(Path mount, String options, OnMount test) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "SKIPPED: mounting a tmpfs needs root");
        Files.createDirectory(mount);
        io.jcoll.testing.Commands.Result mounted = io.jcoll.testing.Commands.run(List.of("mount", "-t", "tmpfs",
                "-o", options, "tmpfs", mount.toString()), Map.of(), 30);
        org.junit.jupiter.api.Assumptions.assumeTrue(mounted.exit() == 0, "SKIPPED: " + mounted.output());
        try {
            test.run(mount);
        } finally {
            io.jcoll.testing.Commands.run(List.of("umount", mount.toString()), Map.of(), 30);
        }
    }

    /**
     * The default slot: 128 KB a rank from 256 KB to 1 MB, from 512 KB where the ranks have crews; the smallest
     * default where the directory has no room for the larger; a slot given by JCOLL_SHM_SLOT kept whatever the room
     * (the probe then says it does not fit).
     */
    @Test
    void theDefaultSlotGrowsWithTheRanksAndShrinksWhereTheDirectoryIsSmall() {
        io.jcoll.spi.Settings none = io.jcoll.spi.Settings.of(Map.of());
        // ranks, KB alone, KB with crews
        int[][] expected = {{1, 256, 512}, {2, 256, 512}, {3, 384, 512}, {4, 512, 512}, {5, 640, 640},
                {8, 1024, 1024}, {16, 1024, 1024}, {64, 1024, 1024}};
        for (int[] e : expected) {
            assertEquals(e[1] << 10, Layout.from(none, e[0], Long.MAX_VALUE, false).slotBytes(), e[0] + " ranks alone");
            assertEquals(e[2] << 10, Layout.from(none, e[0], Long.MAX_VALUE, true).slotBytes(), e[0] + " ranks, crews");
        }
        // every default above the smallest falls back to it where the segment would not fit, and only then
        for (Object[] c : new Object[][] {{2, true}, {8, false}, {8, true}}) {
            int n = (int) c[0];
            boolean crews = (boolean) c[1];
            Layout large = Layout.from(none, n, Long.MAX_VALUE, crews);
            assertEquals(256 << 10, Layout.from(none, n, large.totalBytes() - 1, crews).slotBytes(),
                    n + " ranks, crews " + crews + ": no room for the larger slots");
            assertEquals(large.slotBytes(), Layout.from(none, n, large.totalBytes(), crews).slotBytes(),
                    n + " ranks, crews " + crews + ": room for exactly the segment");
        }
        io.jcoll.spi.Settings given = io.jcoll.spi.Settings.of(Map.of("JCOLL_SHM_SLOT", "2M"));
        assertEquals(2 << 20, Layout.from(given, 8, 4096, true).slotBytes(), "a slot given is kept");
        io.jcoll.spi.Settings small = io.jcoll.spi.Settings.of(Map.of("JCOLL_SHM_SLOT", "256K"));
        assertEquals(256 << 10, Layout.from(small, 2, Long.MAX_VALUE, true).slotBytes(),
                "a slot given is kept where the default with crews is larger");
    }

    /**
     * Eight ranks in a real tmpfs (root only) that holds their segment with the smallest default slot and not with
     * the one for eight ranks: they take shared memory with 256 KiB slots, where a larger directory gives them
     * 1 MiB ones; every rank's AllReduce and AllGather of prime counts over several chunks checked either way.
     */
    @Test
    void eightRanksInASmallTmpfsTakeSmallerSlots(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "SKIPPED: mounting a tmpfs needs root");
        int n = 8;
        io.jcoll.spi.Settings none = io.jcoll.spi.Settings.of(Map.of());
        long small = Layout.from(none, n, 0, false).totalBytes();
        long large = Layout.from(none, n, Long.MAX_VALUE, false).totalBytes();
        assertTrue(large > small + (4 << 20), large + " against " + small);
        Path mount = Files.createDirectory(dir.resolve("small-shm"));
        io.jcoll.testing.Commands.Result mounted = io.jcoll.testing.Commands.run(List.of("mount", "-t", "tmpfs",
                "-o", "size=" + ((small + large) / 2 >> 10) + "k,mode=0700", "tmpfs", mount.toString()), Map.of(), 30);
        org.junit.jupiter.api.Assumptions.assumeTrue(mounted.exit() == 0, "SKIPPED: " + mounted.output());
        try {
            assertSlotsOf(n, Map.of("JCOLL_SHM_DIR", mount.toString(), "JCOLL_SHM_THREADS", "1"), "256 KiB");
        } finally {
            io.jcoll.testing.Commands.run(List.of("umount", mount.toString()), Map.of(), 30);
        }
        assertSlotsOf(n, Map.of("JCOLL_SHM_DIR", dir.toString(), "JCOLL_SHM_THREADS", "1"), "1024 KiB");
    }

    /**
     * Two ranks take 512 KiB slots where they have crews and 256 KiB where each copies alone (rank 0's crew decides
     * for the segment it makes); an AllReduce and an AllGather over several chunks checked either way.
     */
    @Test
    void twoRanksWithCrewsTakeLargerSlots(@TempDir Path dir) {
        assertSlotsOf(2, Map.of("JCOLL_SHM_DIR", dir.toString(), "JCOLL_SHM_THREADS", "3"), "512 KiB");
        assertSlotsOf(2, Map.of("JCOLL_SHM_DIR", dir.toString(), "JCOLL_SHM_THREADS", "1"), "256 KiB");
    }

    private static void assertSlotsOf(int n, Map<String, String> settings, String slot) {
        int port = ShmGroup.freePort();
        int count = 786_433; // a prime: three 1 MiB chunks of float32 and a bit
        Ranks.all(n, Duration.ofMinutes(2), rank -> {
            try (Communicator comm = ShmGroup.builder(rank, n, port, "auto", settings).build()) {
                assertEquals("shm", comm.transport().name(), comm.transport().toString());
                String summary = comm.network().summary();
                assertTrue(summary.contains("slots of " + slot + " per rank"), summary);
                float[] v = new float[count];
                for (int i = 0; i < count; i++) {
                    v[i] = (float) ((rank + 1) * (i % 97));
                }
                comm.allReduce(HostBuffer.of(v), ReduceOp.SUM);
                double ranks = n * (n + 1) / 2.0;
                for (int i = 0; i < count; i++) {
                    assertEquals(ranks * (i % 97), v[i], 0.0, "element " + i + " on rank " + rank);
                }
                // an AllGather of a prime count a rank: chunks of 256 KiB whatever the slot, two and a bit here
                int block = 163_841;
                float[] mine = new float[block];
                for (int i = 0; i < block; i++) {
                    mine[i] = rank * 1_000_003f + i;
                }
                float[] all = new float[block * n];
                comm.allGather(HostBuffer.of(mine), HostBuffer.of(all), block);
                for (int r = 0; r < n; r++) {
                    for (int i = 0; i < block; i++) {
                        assertEquals(r * 1_000_003f + i, all[r * block + i], "rank " + r + "'s element " + i);
                    }
                }
                return null;
            }
        });
    }

    /** Two "hosts" that share a host name but not a segment directory: the setup finds out, and all ranks agree. */
    @Test
    void ranksThatCannotShareTheSegmentFallBackToTcpTogether(@TempDir Path dir) throws Exception {
        int n = 3;
        Path[] dirs = {Files.createDirectory(dir.resolve("a")), Files.createDirectory(dir.resolve("b"))};
        int port = ShmGroup.freePort();
        Ranks.all(n, Duration.ofMinutes(1), rank -> {
            Map<String, String> own = Map.of("JCOLL_SHM_DIR", dirs[rank == 2 ? 1 : 0].toString());
            try (Communicator comm = ShmGroup.builder(rank, n, port, "auto", own).build()) {
                assertEquals("tcp", comm.transport().name());
                assertTrue(comm.transport().rejected().stream().anyMatch(r -> r.startsWith("shm passed over")
                        && r.contains("rank 2")), comm.transport().toString());
                float[] v = {rank};
                comm.allReduce(HostBuffer.of(v), ReduceOp.SUM);
                assertEquals(3f, v[0]);
                return null;
            }
        });
        for (Path d : dirs) {
            try (Stream<Path> files = Files.list(d)) {
                assertEquals(List.of(), files.toList(), "a segment was left in " + d);
            }
        }
        int port2 = ShmGroup.freePort();
        List<Throwable> failures = Ranks.all(n, Duration.ofMinutes(1), rank -> assertThrows(
                TransportUnavailableException.class, () -> ShmGroup.join(rank, n, port2,
                        Map.of("JCOLL_SHM_DIR", dirs[rank == 2 ? 1 : 0].toString())).close()));
        for (Throwable t : failures) {
            assertTrue(t.getMessage().contains("rank 2"), t.getMessage());
        }
    }

    /**
     * Two ranks call AllReduce with different counts: both small (both in the boxes), or one small and one large
     * (one waits in the boxes, the other in the slots, each for the other; each must still find the other's call
     * at its millisecond check, long before the timeout). Both fail, naming the other and both calls.
     */
    @ParameterizedTest(name = "{0} and {1} floats")
    @CsvSource({"10, 11", "10, 5000"})
    void callsThatDisagreeFailOnBothRanksNamingTheOther(int countOnZero, int countOnOne) {
        int n = 2;
        int port = ShmGroup.freePort();
        List<Throwable> failures = Ranks.all(n, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_TIMEOUT", "60s"))) {
                float[] v = new float[rank == 0 ? countOnZero : countOnOne];
                long start = System.nanoTime();
                Throwable e = assertThrows(CollectiveMismatchException.class,
                        () -> comm.allReduce(HostBuffer.of(v), ReduceOp.SUM));
                assertTrue(System.nanoTime() - start < 10_000_000_000L, "took " + (System.nanoTime() - start) / 1e9
                        + " s; the timeout is 60 s");
                return e;
            }
        });
        for (int r = 0; r < n; r++) {
            JcollException e = (JcollException) failures.get(r);
            assertEquals(1 - r, e.peer(), e.getMessage());
            assertTrue(e.getMessage().contains(countOnZero + " x float32") && e.getMessage().contains(countOnOne
                    + " x float32"), e.getMessage());
        }
    }

    @Test
    void aRankThatClosesWhileItsPeerWaitsIsNamed() {
        int n = 2;
        int port = ShmGroup.freePort();
        List<Object> outcomes = Ranks.all(n, Duration.ofMinutes(1), rank -> {
            Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_TIMEOUT", "30s"));
            comm.barrier();
            if (rank == 1) {
                comm.close(); // one collective fewer than rank 0
                return null;
            }
            long start = System.nanoTime();
            PeerFailureException e = assertThrows(PeerFailureException.class, comm::barrier);
            comm.close();
            assertTrue(System.nanoTime() - start < 5_000_000_000L, "took longer than the peer's close");
            return e;
        });
        JcollException e = (JcollException) outcomes.get(0);
        assertEquals(1, e.peer());
        assertTrue(e.getMessage().contains("closed its communicator"), e.getMessage());
    }

    private static long deadPid() {
        long pid = 4_000_000;
        while (ProcessHandle.of(pid).isPresent()) {
            pid++;
        }
        return pid;
    }
}
