package io.jcoll.shm;

import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The last-level cache as sysfs lists it, and as JCOLL_SHM_CACHE overrides it. */
class LastLevelCacheTest {

    @Test
    void sizesAreReadAsSysfsWritesThem() {
        assertEquals(32L << 20, LastLevelCache.parse("32768K"));
        assertEquals(300L << 20, LastLevelCache.parse("300M"));
        assertEquals(1L << 30, LastLevelCache.parse("1G"));
        assertEquals(512, LastLevelCache.parse("512"));
    }

    /** A Xeon's list: the highest level's data or unified cache, never an instruction cache of that level. */
    @Test
    void theHighestDataOrUnifiedLevelIsTaken(@TempDir Path dir) throws IOException {
        index(dir, 0, 1, "Data", "48K");
        index(dir, 1, 1, "Instruction", "32K");
        index(dir, 2, 2, "Unified", "2048K");
        index(dir, 3, 3, "Unified", "307200K");
        index(dir, 4, 4, "Instruction", "999999K");
        assertEquals(300L << 20, LastLevelCache.listed(dir));
    }

    @Test
    void aListItCannotReadIsUnknown(@TempDir Path dir) throws IOException {
        assertEquals(0, LastLevelCache.listed(dir.resolve("absent")));
        index(dir, 0, 1, "Data", "forty-eight");
        assertEquals(0, LastLevelCache.listed(dir));
        Path partial = Files.createDirectories(dir.resolve("partial/index0"));
        Files.writeString(partial.resolve("type"), "Data\n");
        assertEquals(0, LastLevelCache.listed(dir.resolve("partial")));
    }

    @Test
    void theSettingOverridesTheListAndMustBePositive() {
        assertEquals(24L << 20, LastLevelCache.bytes(Settings.of(Map.of("JCOLL_SHM_CACHE", "24M"))));
        assertEquals(LastLevelCache.listed(LastLevelCache.CPU0), LastLevelCache.bytes(Settings.of(Map.of())));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LastLevelCache.bytes(Settings.of(Map.of("JCOLL_SHM_CACHE", "0"))));
        assertTrue(e.getMessage().contains("JCOLL_SHM_CACHE must be a size above 0"), e.getMessage());
    }

    /** Where the cache is unknown, all-gathers keep reading; else from a third of it, rounded up. */
    @Test
    void allGathersWriteFromAThirdOfTheCache() {
        assertEquals(Long.MAX_VALUE, SingleCopy.allGatherWriteMinBytes(0));
        assertEquals(8L << 20, SingleCopy.allGatherWriteMinBytes(24L << 20));
        assertEquals(11_184_811, SingleCopy.allGatherWriteMinBytes(32L << 20));
    }

    private static void index(Path dir, int index, int level, String type, String size) throws IOException {
        Path entry = Files.createDirectories(dir.resolve("index" + index));
        Files.writeString(entry.resolve("level"), level + "\n");
        Files.writeString(entry.resolve("type"), type + "\n");
        Files.writeString(entry.resolve("size"), size + "\n");
    }
}
