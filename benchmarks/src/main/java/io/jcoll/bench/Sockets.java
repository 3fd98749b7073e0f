package io.jcoll.bench;

import com.sun.jna.Library;
import com.sun.jna.Native;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * For failure drills: cuts every socket of this process from under whoever uses it
 * (jcoll, NCCL's own sockets), with {@code shutdown(2)} on each socket descriptor in
 * {@code /proc/self/fd}. The peers then see their connections end mid-transfer, as
 * after a reset. Linux only.
 */
final class Sockets {

    private interface LibC extends Library {
        int shutdown(int fd, int how);
    }

    private static final int SHUT_RDWR = 2;

    private Sockets() {
    }

    /** @return how many sockets were shut down */
    static int shutDownAll() {
        LibC libc = Native.load("c", LibC.class);
        int cut = 0;
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith("socket:")
                            && libc.shutdown(Integer.parseInt(fd.getFileName().toString()), SHUT_RDWR) == 0) {
                        cut++;
                    }
                } catch (IOException | NumberFormatException ignored) {
                    // closed meanwhile, or not a descriptor
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc/self/fd: " + e.getMessage(), e);
        }
        return cut;
    }
}
