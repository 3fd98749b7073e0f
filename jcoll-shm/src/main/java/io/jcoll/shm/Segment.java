package io.jcoll.shm;

import io.jcoll.spi.SharedFiles;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A communicator's shared file, mapped: created by one rank (owner-only, every page written once so that a full
 * file system says so now rather than with a SIGBUS later), opened by the others by name, unlinked once all have
 * mapped it (so that nothing is left behind whatever happens to the processes afterwards), and unmapped at close.
 */
final class Segment implements AutoCloseable {

    static final long MAGIC = 0x4A434F4C4C53484DL; // "JCOLLSHM"
    static final int VERSION = 2; // 2: control blocks of five lines (the shared allocations single copy reads)
    private static final int MAGIC_AT = 0;
    private static final int VERSION_AT = 8;
    private static final int NONCE_AT = 16;

    private final Path path;
    private final FileChannel channel;
    private final MappedByteBuffer map;
    private final Layout layout;
    private final long nonce;
    private boolean unmapped;

    private Segment(Path path, FileChannel channel, MappedByteBuffer map, Layout layout, long nonce) {
        this.path = path;
        this.channel = channel;
        this.map = map;
        this.layout = layout;
        this.nonce = nonce;
    }

    /** Creates the file at {@code path} (which must not exist), sized and stamped for {@code layout}. */
    static Segment create(Path path, Layout layout, long nonce) throws IOException {
        long total = layout.totalBytes();
        FileChannel ch = SharedFiles.createFilled(path, total);
        try {
            ch.force(false);
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, total);
            map.order(ByteOrder.nativeOrder());
            map.putInt(VERSION_AT, VERSION);
            map.putLong(NONCE_AT, nonce);
            map.putLong(MAGIC_AT, MAGIC); // last: a joiner that sees it sees everything above
            return new Segment(path, ch, map, layout, nonce);
        } catch (IOException | RuntimeException e) {
            ch.close();
            Files.deleteIfExists(path);
            throw e;
        }
    }

    /** Opens the file another rank created, checking that it is that file and laid out as agreed. */
    static Segment open(Path path, Layout layout, long nonce) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long size = ch.size();
            if (size != layout.totalBytes()) {
                throw new IOException(path + " has " + size + " bytes where the agreed layout needs "
                        + layout.totalBytes() + " (another file of that name, or one cut short)");
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            map.order(ByteOrder.nativeOrder());
            if (map.getLong(MAGIC_AT) != MAGIC || map.getLong(NONCE_AT) != nonce || map.getInt(VERSION_AT) != VERSION) {
                throw new IOException(path + " is not the segment rank 0 created for this communicator "
                        + "(its stamp differs: another job's file, or a different jcoll version)");
            }
            return new Segment(path, ch, map, layout, nonce);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    Path path() {
        return path;
    }

    Layout layout() {
        return layout;
    }

    ByteBuffer buffer() {
        return map;
    }

    /**
     * Null if the segment is still whole, else what another process did to it: cut short (the next touch beyond
     * the end would raise SIGBUS) or its header overwritten. Costs a system call: for waits that already sleep.
     * A fault that an earlier touch of a lost page left pending is raised first ({@link PendingFault}): thrown
     * inside the channel's size query, it would leave the channel unclosable.
     */
    String damage() {
        boolean faulted = PendingFault.raised();
        try {
            long size = channel.size();
            if (size < layout.totalBytes()) {
                return "the shared segment " + path + " was truncated by another process to " + size + " of its "
                        + layout.totalBytes() + " bytes";
            }
        } catch (IOException e) {
            return "the shared segment " + path + " can no longer be read: " + e.getMessage();
        }
        if (map.getLong(MAGIC_AT) != MAGIC || map.getLong(NONCE_AT) != nonce) {
            return "the shared segment " + path + " was overwritten by another process (its header changed)";
        }
        return faulted ? "a page of the shared segment " + path + " could not be read (another process truncated "
                + "it, and may have restored its size since)" : null;
    }

    /** Removes the name; the mappings stay until each process unmaps. Idempotent. */
    void unlink() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // the directory went away or became read-only: nothing of ours is left to remove
        }
    }

    /**
     * Unmaps now rather than when the collector finds the buffer: a loop of splits must not hold a thousand
     * mappings' pages. The caller guarantees no thread touches the mapping any more.
     */
    @Override
    public void close() {
        if (unmapped) {
            return;
        }
        unmapped = true;
        closeDescriptor();
        Unmapper.unmap(map);
    }

    /**
     * Closes the file but keeps the mapping, which stays valid without it: for a segment whose mapping a failed
     * call's thread might still touch. The file's memory is freed when the collector unmaps it. Idempotent.
     */
    void closeDescriptor() {
        PendingFault.raised(); // not inside the channel's closing (see damage), which would then never finish
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to flush: the file is shared memory
        }
    }

    /** {@code sun.misc.Unsafe.invokeCleaner}, where the JDK offers it; otherwise the collector unmaps. */
    private static final class Unmapper {
        private static final Object UNSAFE;
        private static final Method INVOKE_CLEANER;

        static {
            Object unsafe = null;
            Method cleaner = null;
            try {
                Class<?> c = Class.forName("sun.misc.Unsafe");
                java.lang.reflect.Field f = c.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                unsafe = f.get(null);
                cleaner = c.getMethod("invokeCleaner", ByteBuffer.class);
            } catch (ReflectiveOperationException | RuntimeException e) {
                unsafe = null;
                cleaner = null;
            }
            UNSAFE = unsafe;
            INVOKE_CLEANER = cleaner;
        }

        static void unmap(MappedByteBuffer map) {
            if (INVOKE_CLEANER == null) {
                return;
            }
            try {
                INVOKE_CLEANER.invoke(UNSAFE, map);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // left to the collector
            }
        }
    }
}
