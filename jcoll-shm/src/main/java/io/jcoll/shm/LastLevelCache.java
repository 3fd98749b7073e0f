package io.jcoll.shm;

import io.jcoll.spi.Settings;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The size of this host's last-level cache, which decides where two-rank all-gathers write their peers rather than
 * read them ({@link SingleCopy#allGatherWriteMinBytes}): JCOLL_SHM_CACHE where given (for a host whose sysfs a
 * container hides, or to try another size), else the largest data or unified cache of the highest level that
 * Linux lists for CPU 0 under {@code /sys/devices/system/cpu/cpu0/cache}; 0 where neither says.
 */
final class LastLevelCache {

    static final Path CPU0 = Path.of("/sys/devices/system/cpu/cpu0/cache");

    private LastLevelCache() {
    }

    /** JCOLL_SHM_CACHE, or what {@link #CPU0} lists; 0: unknown. */
    static long bytes(Settings settings) {
        long given = settings.getBytes("JCOLL_SHM_CACHE", -1);
        if (given == 0 || given < -1) {
            throw new IllegalArgumentException("JCOLL_SHM_CACHE must be a size above 0 (was " + given + ")");
        }
        return given > 0 ? given : listed(CPU0);
    }

    /**
     * The size of the highest-level data or unified cache among {@code dir}'s {@code index*} entries (each a
     * {@code level}, {@code type} and {@code size} file, the size as sysfs writes it: {@code 32768K}); 0 where there
     * is none or a file cannot be read.
     */
    static long listed(Path dir) {
        int highest = 0;
        long bytes = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "index*")) {
            for (Path entry : entries) {
                if (Files.readString(entry.resolve("type")).strip().equals("Instruction")) {
                    continue;
                }
                int level = Integer.parseInt(Files.readString(entry.resolve("level")).strip());
                long size = parse(Files.readString(entry.resolve("size")).strip());
                if (level > highest || level == highest && size > bytes) {
                    highest = level;
                    bytes = size;
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0; // no sysfs here, or not as Linux writes it: unknown
        }
        return bytes;
    }

    /** A size as sysfs writes it: digits, then K, M or G (binary), or none for bytes. */
    static long parse(String size) {
        char unit = size.isEmpty() ? ' ' : Character.toUpperCase(size.charAt(size.length() - 1));
        int shift = switch (unit) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            default -> 0;
        };
        String digits = shift == 0 ? size : size.substring(0, size.length() - 1);
        return Long.parseLong(digits) << shift;
    }
}
