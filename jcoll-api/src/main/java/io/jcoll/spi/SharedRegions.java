package io.jcoll.spi;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Host memory that the other processes of this user on this host can map, and the live allocations of this
 * process, for transports that read a peer's buffer through a mapping of their own instead of a copy by the kernel
 * ({@link io.jcoll.SharedMemory} is the user's door to it).
 *
 * <p>Each allocation is a file of its own ({@link SharedFiles}: in {@code JCOLL_SHM_DIR}, else {@code /dev/shm}),
 * owner-only, every page written once (a full file system says so at allocation, not with a SIGBUS when a page is first
 * touched), mapped shared and unlinked at once: nothing is left behind whatever happens to the process, and a peer
 * opens it through {@code /proc/<pid>/fd/<fd>} (which the kernel allows only to processes that may inspect this one).
 * The file's first page is a header (a magic word and the allocation's random id, by which a peer checks that the
 * descriptor it opened is still that allocation's); the caller's memory follows it. The file is closed when the garbage
 * collector finds every view of the memory unreachable, as a direct buffer's memory is freed.
 */
public final class SharedRegions {

    /** "JCOLLMEM": the first word of every allocation's header. */
    public static final long MAGIC = 0x4A434F4C4C4D454DL;
    /** Bytes of the header before the caller's memory: a page, so that the memory is page-aligned. */
    public static final int HEADER_BYTES = 4096;
    /** The header's word holding the allocation's id. */
    public static final int ID_AT = 8;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Cleaner CLEANER = Cleaner.create();
    private static final Map<Long, Region> LIVE = new ConcurrentHashMap<>();
    private static final AtomicLong VERSION = new AtomicLong();

    private SharedRegions() {
    }

    /**
     * One live allocation: its id, this process's descriptor of its file (-1 where none could be found: the memory
     * works, but no peer can open it), the file's bytes (header included) and channel (whose size says whether
     * another process cut the file short), and its whole mapping, header first, held weakly (a region whose mapping
     * is gone is no longer live, whatever the registry still says).
     */
    public record Region(long id, int fd, long bytes, FileChannel channel, WeakReference<ByteBuffer> mapping) {
    }

    /** Changes whenever an allocation is made or freed: a transport's view of {@link #live} is current while it holds. */
    public static long version() {
        return VERSION.get();
    }

    /** This process's live allocations. */
    public static List<Region> live() {
        return new ArrayList<>(LIVE.values());
    }

    /**
     * A fresh shared allocation of {@code bytes}, zeroed, native byte order, page-aligned, in the directory
     * {@code settings} name.
     *
     * @throws IOException naming the directory and what it said (not writable, no space left)
     */
    public static ByteBuffer allocate(int bytes, Settings settings) throws IOException {
        if (bytes < 0) {
            throw new IllegalArgumentException("a shared allocation of " + bytes + " bytes");
        }
        Path dir = SharedFiles.directory(settings);
        Path path = SharedFiles.freshName(dir);
        long total = (long) HEADER_BYTES + bytes;
        FileChannel channel;
        try {
            channel = SharedFiles.createFilled(path, total);
        } catch (IOException e) {
            throw failure(bytes, dir, e);
        }
        try {
            int fd = descriptorOf(path);
            MappedByteBuffer whole = channel.map(FileChannel.MapMode.READ_WRITE, 0, total);
            whole.order(ByteOrder.nativeOrder());
            long id = RANDOM.nextLong() | 1; // never 0: a word of 0 says "no region"
            whole.putLong(ID_AT, id);
            whole.putLong(0, MAGIC);
            Files.delete(path);
            LIVE.put(id, new Region(id, fd, total, channel, new WeakReference<>(whole)));
            VERSION.incrementAndGet();
            CLEANER.register(whole, new Release(id, channel));
            return whole.slice(HEADER_BYTES, bytes).order(ByteOrder.nativeOrder());
        } catch (IOException | RuntimeException e) {
            channel.close();
            Files.deleteIfExists(path);
            throw failure(bytes, dir, e);
        }
    }

    private static IOException failure(int bytes, Path dir, Exception e) {
        return new IOException("cannot make a shared allocation of " + bytes + " bytes in "
                + SharedFiles.describe(dir) + ": " + e, e);
    }

    /**
     * This process's descriptor of the file at {@code path}, found among {@code /proc/self/fd} (whose links name the
     * file's real path: {@code /dev/shm} is a link to {@code /run/shm} on some systems); -1 where none.
     */
    private static int descriptorOf(Path path) {
        Path real;
        try {
            real = path.toRealPath();
        } catch (IOException e) {
            return -1;
        }
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    if (Files.readSymbolicLink(fd).equals(real)) {
                        return Integer.parseInt(fd.getFileName().toString());
                    }
                } catch (IOException | RuntimeException e) {
                    // a descriptor closed meanwhile, or not a link: not ours
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc here: the memory works, no peer can open it
        }
        return -1;
    }

    /** Closes an allocation's file once its mapping is unreachable; references nothing that keeps it reachable. */
    private record Release(long id, FileChannel channel) implements Runnable {
        @Override
        public void run() {
            LIVE.remove(id);
            VERSION.incrementAndGet();
            try {
                channel.close();
            } catch (IOException e) {
                // the descriptor goes with the process anyway
            }
        }
    }
}
