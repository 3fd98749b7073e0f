package io.jcoll.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mappings of a file: shared between mappers, in native order, outliving their channel, and unmapped through an
 * arena from JDK 22 (no {@code sun.misc.Unsafe}, which JDK 24 and later warn about; a touch after the unmapping
 * is an exception, not a crash).
 */
class FileMappingTest {

    private static final int BYTES = 3 * 4096 + 8;

    @TempDir
    Path dir;

    @Test
    void twoMappingsOfOneFileSeeEachOthersWritesAfterTheirChannelsClose() throws IOException {
        Path file = dir.resolve("segment");
        FileMapping a;
        FileMapping b;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(BYTES), 0);
            a = FileMapping.map(ch, BYTES);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            b = FileMapping.map(ch, BYTES);
        }
        assertEquals(BYTES, a.buffer().capacity());
        assertEquals(java.nio.ByteOrder.nativeOrder(), a.buffer().order());
        SplittableRandom random = new SplittableRandom();
        long[] written = new long[BYTES / 8];
        for (int i = 0; i < written.length; i++) {
            written[i] = random.nextLong();
            a.buffer().putLong(i * 8, written[i]);
        }
        for (int i = 0; i < written.length; i++) {
            assertEquals(written[i], b.buffer().getLong(i * 8), "long " + i);
        }
        a.unmap();
        b.buffer().putLong(BYTES - 8, 42); // the other mapping stays
        assertEquals(42, b.buffer().getLong(BYTES - 8));
        b.unmap();
    }

    @Test
    void fromJdk22AMappingIsAnArenasAndATouchAfterItsUnmappingThrows() throws IOException {
        Path file = dir.resolve("segment");
        FileMapping m;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(BYTES), 0);
            m = FileMapping.map(ch, BYTES);
        }
        if (Runtime.version().feature() < 22) {
            assertFalse(m.unmapsSafely(), "before JDK 22 only the cleaner unmaps, and a later touch would crash");
            m.unmap();
            return;
        }
        assertTrue(m.unmapsSafely());
        ByteBuffer view = m.buffer().slice(4096, 64); // views share the mapping's fate
        view.putLong(0, 7);
        m.unmap();
        assertThrows(IllegalStateException.class, () -> view.getLong(0));
        assertThrows(IllegalStateException.class, () -> m.buffer().putLong(0, 1));
    }
}
