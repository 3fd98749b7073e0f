package io.jcoll.spi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files behind jcoll's shared memory, a transport's segments and {@link io.jcoll.SharedMemory}'s allocations
 * alike: where they live ({@code JCOLL_SHM_DIR}, else {@code /dev/shm}), how they are named
 * ({@code jcoll-<pid>-<16 hex digits>}: the creating process and 64 random bits, never the same twice, so that a
 * file whose creator is gone can be told for a stale one), and how one is made (owner-only, every page written).
 */
public final class SharedFiles {

    /** The setting naming the directory. */
    public static final String DIR_VARIABLE = "JCOLL_SHM_DIR";
    /** The directory where none is named. */
    public static final Path DEFAULT_DIR = Path.of("/dev/shm");
    private static final Pattern NAME = Pattern.compile("jcoll-(\\d+)-[0-9a-f]{16}");
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Bytes written at a time to fill a new file. */
    private static final int FILL_BYTES = 1 << 20;

    private SharedFiles() {
    }

    /** The directory {@code settings} name ({@link #DIR_VARIABLE}), else {@link #DEFAULT_DIR}. */
    public static Path directory(Settings settings) {
        return settings.get(DIR_VARIABLE).map(Path::of).orElse(DEFAULT_DIR);
    }

    /** {@code dir} for a message, with the setting that named it where it is not the default. */
    public static String describe(Path dir) {
        return dir + (dir.equals(DEFAULT_DIR) ? "" : " (" + DIR_VARIABLE + ")");
    }

    /** A fresh name in {@code dir}, this process's. */
    public static Path freshName(Path dir) {
        return dir.resolve(String.format("jcoll-%d-%016x", ProcessHandle.current().pid(), RANDOM.nextLong()));
    }

    /**
     * The pid of the process that made a file named {@code name} ({@link #freshName}), or -1 where the name is not
     * one jcoll makes: nothing else is opened or removed (no path of another's choosing).
     */
    public static long creator(String name) {
        Matcher m = NAME.matcher(name);
        return m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    /**
     * Creates the file at {@code path}, which must not exist, owner-only (mode 0600), and writes every one of its
     * {@code bytes}: a full file system says so here ("No space left on device"), not with a SIGBUS when a page of a
     * mapping is first touched. On failure the file is closed and removed.
     */
    public static FileChannel createFilled(Path path, long bytes) throws IOException {
        FileChannel channel = FileChannel.open(path, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.max(1, Math.min(FILL_BYTES, bytes)));
            for (long at = 0; at < bytes; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
                at += channel.write(zeros, at);
            }
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            Files.deleteIfExists(path);
            throw e;
        }
    }
}
