package io.jcoll.spi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The files behind shared memory: the directory a setting names, names that say their creator (and only names
 * jcoll makes), and owner-only files with every byte written, a second creation of one name refused.
 */
class SharedFilesTest {

    @Test
    void theDirectoryIsTheSettingsElseDevShm(@TempDir Path dir) {
        assertEquals(SharedFiles.DEFAULT_DIR, SharedFiles.directory(Settings.of(Map.of())));
        assertEquals(dir, SharedFiles.directory(Settings.of(Map.of("JCOLL_SHM_DIR", dir.toString()))));
        assertEquals("/dev/shm", SharedFiles.describe(SharedFiles.DEFAULT_DIR));
        assertEquals(dir + " (JCOLL_SHM_DIR)", SharedFiles.describe(dir));
    }

    @Test
    void namesSayTheirCreatorAndOnlyJcollsAreRead(@TempDir Path dir) {
        Path a = SharedFiles.freshName(dir);
        Path b = SharedFiles.freshName(dir);
        assertEquals(dir, a.getParent());
        assertNotEquals(a, b);
        assertEquals(ProcessHandle.current().pid(), SharedFiles.creator(a.getFileName().toString()));
        assertEquals(7, SharedFiles.creator("jcoll-7-0123456789abcdef"));
        for (String other : new String[] {"jcoll-7-0123456789abcde", "jcoll-7-0123456789abcdeg", "jcoll--0123456789abcdef",
                "jcoll-7-0123456789abcdef.tmp", "../jcoll-7-0123456789abcdef", "sem.jcoll-7-0123456789abcdef", ""}) {
            assertEquals(-1, SharedFiles.creator(other), other);
        }
    }

    @Test
    void filesAreOwnerOnlyWithEveryByteWritten(@TempDir Path dir) throws IOException {
        int[] sizes = {0, 1, 4099, (1 << 20) + 13};
        for (int bytes : sizes) {
            Path path = SharedFiles.freshName(dir);
            try (FileChannel channel = SharedFiles.createFilled(path, bytes)) {
                assertEquals(bytes, channel.size());
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
                // every byte is there, zero; then the channel reads and writes as a mapping's file would
                assertArrayEquals(new byte[bytes], Files.readAllBytes(path));
                if (bytes > 0) {
                    byte value = (byte) (1 + new SplittableRandom().nextInt(255));
                    channel.write(ByteBuffer.wrap(new byte[] {value}), bytes - 1);
                    assertEquals(value, Files.readAllBytes(path)[bytes - 1]);
                }
            }
            Files.delete(path);
        }
    }

    @Test
    void aNameTakenIsRefusedAndTheFileLeftAlone(@TempDir Path dir) throws IOException {
        Path path = SharedFiles.freshName(dir);
        Files.write(path, new byte[] {1, 2, 3});
        assertThrows(FileAlreadyExistsException.class, () -> SharedFiles.createFilled(path, 4096));
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(path));
        assertTrue(Files.exists(path));
    }
}
