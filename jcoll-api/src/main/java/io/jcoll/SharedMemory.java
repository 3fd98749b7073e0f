package io.jcoll;

import io.jcoll.spi.Settings;
import io.jcoll.spi.SharedRegions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * Host memory that the other ranks on this host read without the kernel's help: jcoll's counterpart of NCCL's
 * registered buffers ({@code ncclMemAlloc}) and of what Open MPI's shared-memory path gets from the XPMEM kernel
 * module. A collective of the {@code shm} transport whose buffers come from here has its peers read them through
 * mappings of their own, one plain copy a byte, where an ordinary direct buffer is read with
 * {@code process_vm_readv}, a system call that pins the pages it crosses (a 64 KB read took 5.9 us against
 * {@code memcpy}'s 0.7 on the development VM). Any buffer works with every transport; this memory only lets the
 * shared-memory transport take its fastest way (JDK 22 and later, like the rest of its single-copy path).
 * <pre>{@code
 * ByteBuffer grads = SharedMemory.allocate(4 << 20);           // 1 Mi float32 values, zeroed
 * comm.allReduce(HostBuffer.of(grads, DataType.FLOAT32), ReduceOp.SUM);
 * }</pre>
 *
 * <p>Each allocation is a file of its own in {@code JCOLL_SHM_DIR} (else {@code /dev/shm}), readable by its owner
 * only and unlinked at once, so that nothing is left behind whatever happens to the process; peers of the same
 * user open it through {@code /proc}. Its memory is freed, like a direct buffer's, when the garbage collector finds
 * no view of it left. Memory that another process of the user cuts short (by truncating the file through
 * {@code /proc}) raises an {@link InternalError} where it is touched, as any truncated mapped file does, and a
 * collective reading it names the rank whose buffer it was; the JVM does not crash.
 */
public final class SharedMemory {

    private SharedMemory() {
    }

    /**
     * A fresh allocation of {@code bytes}, zeroed, in native byte order, page-aligned.
     *
     * @param bytes how many bytes, 0 or more
     * @return a direct buffer over the memory
     * @throws IllegalArgumentException for a negative size
     * @throws UncheckedIOException naming the directory and what failed (not writable, no space left)
     */
    public static ByteBuffer allocate(int bytes) {
        try {
            return SharedRegions.allocate(bytes, Settings.fromEnvironment());
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
    }
}
