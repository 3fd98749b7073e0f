package io.jcoll.spi;

import io.jcoll.SharedMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shared allocations: zeroed, native order, page-aligned, every size from 0; owner-only files unlinked at once
 * (nothing in the directory), which another process of the user opens through {@code /proc/<pid>/fd} and sees
 * the same bytes in; a directory that cannot hold one is named.
 */
class SharedRegionsTest {

    @Test
    void allocationsAreZeroedAlignedAndLeaveNoFile(@TempDir Path dir) throws IOException {
        Settings settings = Settings.of(Map.of("JCOLL_SHM_DIR", dir.toString()));
        for (int bytes : new int[] {0, 1, 4099, 1 << 20}) {
            ByteBuffer b = SharedRegions.allocate(bytes, settings);
            assertEquals(bytes, b.capacity());
            assertTrue(b.isDirect());
            assertEquals(ByteOrder.nativeOrder(), b.order());
            assertEquals(0, b.alignmentOffset(0, 4096), "not page-aligned");
            for (int i = 0; i < bytes; i++) {
                assertEquals(0, b.get(i), "byte " + i + " of " + bytes);
            }
            try (Stream<Path> left = Files.list(dir)) {
                assertEquals(List.of(), left.toList(), "the file was left in the directory");
            }
        }
    }

    /**
     * What one view writes, a second mapping of the file opened through {@code /proc/self/fd/<fd>} (as a peer
     * opens it) reads, behind the header that names the allocation; the file is the owner's only (0600).
     */
    @Test
    void aSecondMappingThroughProcSeesTheSameBytes() throws IOException {
        int bytes = 10_007;
        ByteBuffer mine = SharedMemory.allocate(bytes);
        SplittableRandom random = new SplittableRandom();
        byte[] data = new byte[bytes];
        random.nextBytes(data);
        mine.put(0, data);
        SharedRegions.Region region = SharedRegions.live().stream()
                .filter(r -> r.bytes() == SharedRegions.HEADER_BYTES + bytes).findFirst().orElseThrow();
        assertTrue(region.fd() >= 0, "no descriptor found");
        Path door = Path.of("/proc/self/fd/" + region.fd());
        assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(door));
        try (FileChannel ch = FileChannel.open(door, StandardOpenOption.READ)) {
            MappedByteBuffer theirs = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            theirs.order(ByteOrder.nativeOrder());
            assertEquals(SharedRegions.MAGIC, theirs.getLong(0));
            assertEquals(region.id(), theirs.getLong(SharedRegions.ID_AT));
            byte[] seen = new byte[bytes];
            theirs.get(SharedRegions.HEADER_BYTES, seen);
            assertTrue(java.util.Arrays.equals(data, seen), "the second mapping sees other bytes");
        }
        java.lang.ref.Reference.reachabilityFence(mine);
    }

    /** A directory reached through a symbolic link (as /dev/shm is a link to /run/shm on some systems) still shares. */
    @Test
    void aDirectoryBehindALinkStillGivesADescriptor(@TempDir Path dir) throws IOException {
        Path real = Files.createDirectory(dir.resolve("real"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), real);
        ByteBuffer b = SharedRegions.allocate(8191, Settings.of(Map.of("JCOLL_SHM_DIR", link.toString())));
        SharedRegions.Region region = SharedRegions.live().stream()
                .filter(r -> r.bytes() == SharedRegions.HEADER_BYTES + 8191).findFirst().orElseThrow();
        assertTrue(region.fd() >= 0, "no descriptor for an allocation made through a link");
        java.lang.ref.Reference.reachabilityFence(b);
    }

    @Test
    void badSizesAndDirectoriesAreNamed(@TempDir Path dir) {
        assertThrows(IllegalArgumentException.class, () -> SharedMemory.allocate(-1));
        Path missing = dir.resolve("not-there");
        IOException e = assertThrows(IOException.class,
                () -> SharedRegions.allocate(64, Settings.of(Map.of("JCOLL_SHM_DIR", missing.toString()))));
        assertTrue(e.getMessage().contains(missing.toString()) && e.getMessage().contains("JCOLL_SHM_DIR"),
                e.getMessage());
    }
}
