package io.jcoll.shm;

import io.jcoll.spi.Settings;
import io.jcoll.spi.SharedFiles;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;

/**
 * Where segments live ({@link SharedFiles}: {@code JCOLL_SHM_DIR}, else {@code /dev/shm}), named for the creating
 * process and 64 random bits: a file whose creator has died and that has not been touched for a minute is a stale
 * one (its creator was killed between creating and unlinking it, a segment or a shared allocation alike), which the
 * next creator in the directory removes.
 */
final class ShmDirectory {

    static final Duration STALE_AFTER = Duration.ofMinutes(1);

    private final Path dir;

    private ShmDirectory(Path dir) {
        this.dir = dir;
    }

    static ShmDirectory of(Settings settings) {
        return new ShmDirectory(SharedFiles.directory(settings));
    }

    Path path() {
        return dir;
    }

    /** Bytes a segment may take here: the directory's usable space, or {@link Long#MAX_VALUE} where unknown. */
    long room() {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            return Long.MAX_VALUE; // unusableReason says what is wrong with the directory
        }
    }

    /** Null if a segment of {@code bytes} can be made here, else why not (for the probe). */
    String unusableReason(long bytes) {
        String where = SharedFiles.describe(dir);
        if (!Files.isDirectory(dir)) {
            return where + " is not a directory";
        }
        if (!Files.isWritable(dir)) {
            return where + (readOnly() ? " is on a read-only file system" : " is not writable by this user");
        }
        try {
            long free = Files.getFileStore(dir).getUsableSpace();
            if (free < bytes) {
                return where + " has " + (free >> 10) + " KiB free where a segment needs " + (bytes >> 10)
                        + " KiB (a full /dev/shm: remove stale files there, or give the container a larger one)";
            }
        } catch (IOException e) {
            return where + " cannot be examined: " + e.getMessage();
        }
        return null;
    }

    /** Whether the directory's file system is mounted read-only (no user may write there, root included). */
    private boolean readOnly() {
        try {
            return Files.getFileStore(dir).isReadOnly();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Whether {@code name} is one {@link #freshName} makes: nothing else is opened (no path of another's choosing). */
    static boolean isSegmentName(String name) {
        return SharedFiles.creator(name) >= 0;
    }

    /** A fresh name in this directory. */
    Path freshName() {
        return SharedFiles.freshName(dir);
    }

    /** Removes segments whose creator is gone and that have not been touched since {@link #STALE_AFTER}. */
    int sweepStale() {
        int removed = 0;
        Instant cutoff = Instant.now().minus(STALE_AFTER);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "jcoll-*")) {
            for (Path f : files) {
                long creator = SharedFiles.creator(f.getFileName().toString());
                if (creator < 0 || ProcessHandle.of(creator).isPresent()) {
                    continue;
                }
                try {
                    FileTime modified = Files.getLastModifiedTime(f);
                    if (modified.toInstant().isBefore(cutoff) && Files.deleteIfExists(f)) {
                        removed++;
                    }
                } catch (IOException e) {
                    // another user's file, or gone already: not ours to remove
                }
            }
        } catch (IOException | RuntimeException e) {
            // an unreadable directory: creating will say what is wrong
        }
        return removed;
    }
}
