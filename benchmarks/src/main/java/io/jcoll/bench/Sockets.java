package io.jcoll.bench;

import com.sun.jna.Library;
import com.sun.jna.Native;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * For failure drills: cuts the sockets of this process from under whoever uses them
 * (jcoll, NCCL's own sockets), with {@code shutdown(2)} on each socket descriptor in
 * {@code /proc/self/fd}. The peers then see their connections end mid-transfer, as
 * after a reset. Listening sockets are left alone unless asked for: a reset breaks
 * connections, not a process's listeners. Linux only.
 */
final class Sockets {

    private interface LibC extends Library {
        int shutdown(int fd, int how);

        int getsockopt(int fd, int level, int option, int[] value, int[] length);
    }

    private static final int SHUT_RDWR = 2;
    private static final int SOL_SOCKET = 1;
    private static final int SO_ACCEPTCONN = 30;

    private Sockets() {
    }

    /**
     * @param listenersToo also shut down listening sockets
     * @return how many sockets were shut down
     */
    static int shutDown(boolean listenersToo) {
        LibC libc = Native.load("c", LibC.class);
        int cut = 0;
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (!Files.readSymbolicLink(fd).toString().startsWith("socket:")) {
                        continue;
                    }
                    int n = Integer.parseInt(fd.getFileName().toString());
                    if ((listenersToo || !listening(libc, n)) && libc.shutdown(n, SHUT_RDWR) == 0) {
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

    private static boolean listening(LibC libc, int fd) {
        int[] value = new int[1];
        return libc.getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, value, new int[] {4}) == 0 && value[0] != 0;
    }
}
