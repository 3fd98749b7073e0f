package io.jcoll.shm;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Linux's {@code process_vm_readv} (cross-memory attach, CMA), bound through {@link Libc}: one copy from another
 * process's memory into this one's, the kernel pinning the peer's pages a batch at a time; what Open MPI's
 * shared-memory path uses for large messages. On JDK 17-21 it is {@linkplain #unavailableReason unavailable}. The
 * one native call of the shared-memory transport that passes addresses: {@link #read} writes only the direct buffer
 * it is given, within its remaining bytes, and checks the result.
 */
final class ProcessVmRead {

    // ssize_t process_vm_readv(pid_t, const struct iovec *, unsigned long, const struct iovec *, unsigned long,
    //                          unsigned long), called as (errno, pid, local iovec, 1, remote iovec, 1, 0)
    private static final Libc.Function READV = Libc.find("process_vm_readv", "JAVA_LONG", -1, "JAVA_INT", "ADDRESS",
            "JAVA_LONG", "ADDRESS", "JAVA_LONG", "JAVA_LONG");
    private static final MethodHandle CALL = READV.handle();
    private static final String UNAVAILABLE = READV.unavailable();

    /** A calling thread's two iovecs (this process's range, the peer's), in native memory. */
    private static final class Vectors {
        final ByteBuffer iov = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        final Object local = Libc.segment(iov.slice(0, 16));
        final Object remote = Libc.segment(iov.slice(16, 16));
    }

    private static final ThreadLocal<Vectors> VECTORS = ThreadLocal.withInitial(Vectors::new);

    private ProcessVmRead() {
    }

    /** Why this JDK cannot call process_vm_readv, or null where it can. */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /** The address of {@code buffer}'s byte at its position; 0 for a heap buffer or where no binding exists. */
    static long address(ByteBuffer buffer) {
        return CALL == null ? 0 : Libc.address(buffer);
    }

    /**
     * Copies up to {@code dst.remaining()} bytes of process {@code pid}'s memory from {@code address} into the
     * direct buffer {@code dst} from its position, advancing the position by the bytes copied (the kernel may stop
     * short, at a page it cannot reach: the caller reads on from there); returns them.
     *
     * @throws IOException naming the error (no such process, not permitted, an address not mapped there)
     */
    static int read(long pid, long address, ByteBuffer dst) throws IOException {
        if (CALL == null) {
            throw new IOException(UNAVAILABLE);
        }
        if (!dst.isDirect()) {
            throw new IllegalArgumentException("process_vm_readv writes only direct buffers");
        }
        int length = dst.remaining();
        if (length == 0) {
            return 0;
        }
        long local = address(dst);
        if (local == 0) {
            throw new IOException("no address for the destination buffer");
        }
        Vectors v = VECTORS.get();
        Libc.Errno errno = Libc.Errno.own();
        v.iov.putLong(0, local).putLong(8, length).putLong(16, address).putLong(24, length);
        long copied;
        try {
            copied = (long) CALL.invokeExact(errno.segment, (int) pid, v.local, 1L, v.remote, 1L, 0L);
        } catch (Throwable e) {
            throw new IOException("process_vm_readv failed: " + e, e);
        } finally {
            java.lang.ref.Reference.reachabilityFence(dst); // its memory stays until the kernel is done with it
        }
        if (copied < 0) {
            throw new IOException(errno(errno.value()));
        }
        if (copied > length) {
            throw new IOException("process_vm_readv says it copied " + copied + " of " + length + " bytes");
        }
        dst.position(dst.position() + (int) copied);
        return (int) copied;
    }

    private static String errno(int errno) {
        return switch (errno) {
            case 1 -> "EPERM: this process may not read that one's memory (it needs the same user and, where Yama's "
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
