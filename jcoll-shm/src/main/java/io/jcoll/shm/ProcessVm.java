package io.jcoll.shm;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Linux's {@code process_vm_readv} and {@code process_vm_writev} (cross-memory attach, CMA), bound through
 * {@link Libc}: one copy between another process's memory and this one's, the kernel pinning the peer's pages a batch
 * at a time; what Open MPI's shared-memory path uses for large messages. On JDK 17-21 they are
 * {@linkplain #unavailableReason unavailable}. The native calls of the shared-memory transport that pass addresses:
 * {@link #read} writes only the direct buffer it is given, within its remaining bytes; {@link #write} writes the
 * peer's memory, so its caller must know the range to be the peer's own grant ({@link PeerMemory#write}). Both
 * check the result.
 */
final class ProcessVm {

    // ssize_t process_vm_readv(pid_t, const struct iovec *, unsigned long, const struct iovec *, unsigned long,
    //                          unsigned long), called as (errno, pid, local iovec, 1, remote iovec, 1, 0); _writev alike
    private static final Libc.Function READV = Libc.find("process_vm_readv", "JAVA_LONG", -1, "JAVA_INT", "ADDRESS",
            "JAVA_LONG", "ADDRESS", "JAVA_LONG", "JAVA_LONG");
    private static final Libc.Function WRITEV = Libc.find("process_vm_writev", "JAVA_LONG", -1, "JAVA_INT",
            "ADDRESS", "JAVA_LONG", "ADDRESS", "JAVA_LONG", "JAVA_LONG");
    private static final MethodHandle READ = READV.handle();
    private static final MethodHandle WRITE = WRITEV.handle();
    private static final String UNAVAILABLE = READV.unavailable() != null ? READV.unavailable() : WRITEV.unavailable();

    /** A calling thread's two iovecs (this process's range, the peer's), in native memory. */
    private static final class Vectors {
        final ByteBuffer iov = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        final Object local = Libc.segment(iov.slice(0, 16));
        final Object remote = Libc.segment(iov.slice(16, 16));
    }

    private static final ThreadLocal<Vectors> VECTORS = ThreadLocal.withInitial(Vectors::new);

    private ProcessVm() {
    }

    /** Why this JDK cannot call process_vm_readv and process_vm_writev, or null where it can. */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /** The address of {@code buffer}'s byte at its position; 0 for a heap buffer or where no binding exists. */
    static long address(ByteBuffer buffer) {
        return UNAVAILABLE != null ? 0 : Libc.address(buffer);
    }

    /**
     * Copies up to {@code dst.remaining()} bytes of process {@code pid}'s memory from {@code address} into the
     * direct buffer {@code dst} from its position, advancing the position by the bytes copied (the kernel may stop
     * short, at a page it cannot reach: the caller reads on from there); returns them.
     *
     * @throws IOException naming the error (no such process, not permitted, an address not mapped there)
     */
    static int read(long pid, long address, ByteBuffer dst) throws IOException {
        return transfer(READ, "process_vm_readv", pid, address, dst);
    }

    /**
     * Copies up to {@code src.remaining()} bytes of the direct buffer {@code src} from its position into process
     * {@code pid}'s memory at {@code address}, advancing the position by the bytes copied (the kernel may stop short);
     * returns them. The caller answers for the range: nothing here knows what the peer keeps there.
     *
     * @throws IOException naming the error (no such process, not permitted, an address not mapped there)
     */
    static int write(long pid, long address, ByteBuffer src) throws IOException {
        return transfer(WRITE, "process_vm_writev", pid, address, src);
    }

    /** One call of {@code function} ({@code name}) between {@code local}'s remaining bytes and the peer's. */
    private static int transfer(MethodHandle function, String name, long pid, long address, ByteBuffer local)
            throws IOException {
        if (UNAVAILABLE != null) {
            throw new IOException(UNAVAILABLE);
        }
        if (!local.isDirect()) {
            throw new IllegalArgumentException(name + " takes only direct buffers");
        }
        int length = local.remaining();
        if (length == 0) {
            return 0;
        }
        long at = address(local);
        if (at == 0) {
            throw new IOException("no address for this process's buffer");
        }
        Vectors v = VECTORS.get();
        Libc.Errno errno = Libc.Errno.own();
        v.iov.putLong(0, at).putLong(8, length).putLong(16, address).putLong(24, length);
        long copied;
        try {
            copied = (long) function.invokeExact(errno.segment, (int) pid, v.local, 1L, v.remote, 1L, 0L);
        } catch (Throwable e) {
            throw new IOException(name + " failed: " + e, e);
        } finally {
            java.lang.ref.Reference.reachabilityFence(local); // its memory stays until the kernel is done with it
        }
        if (copied < 0) {
            throw new IOException(errno(errno.value()));
        }
        if (copied > length) {
            throw new IOException(name + " says it copied " + copied + " of " + length + " bytes");
        }
        local.position(local.position() + (int) copied);
        return (int) copied;
    }

    private static String errno(int errno) {
        return switch (errno) {
            case 1 -> "EPERM: this process may not read or write that one's memory (it needs the same user and, where Yama's "
                    + "ptrace_scope is 1, to descend from the process that one declared, JCOLL_SHM_TRACER; or the "
                    + "capability CAP_SYS_PTRACE)";
            case 3 -> "ESRCH: no such process (it has exited)";
            case 12 -> "ENOMEM";
            case 14 -> "EFAULT: an address outside the memory that process has mapped";
            case 22 -> "EINVAL";
            default -> "errno " + errno;
        };
    }
}
