package io.jcoll.shm;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * Linux's {@code process_vm_readv} (cross-memory attach, CMA), called through {@code java.lang.foreign} from JDK 22:
 * one copy from another process's memory into this one's, the kernel pinning the peer's pages a batch at a time;
 * what Open MPI's shared-memory path uses for large messages. This code is compiled for Java 17, so the binding is
 * found by reflection once and called through a method handle; on JDK 17-21 it is {@linkplain #unavailableReason
 * unavailable}. The only native call of the shared-memory transport, and the one place that passes addresses:
 * {@link #read} writes only the direct buffer it is given, within its remaining bytes, and checks the result.
 */
final class ProcessVmRead {

    private static final MethodHandle CALL;           // (capture, pid, local iovec, 1, remote iovec, 1, 0) -> bytes
    private static final MethodHandle SEGMENT_OF;     // MemorySegment.ofBuffer, as (Buffer) -> Object
    private static final MethodHandle ADDRESS_OF;     // MemorySegment.ofBuffer(b).address(), as (Buffer) -> long
    private static final int ERRNO_AT;
    private static final int CAPTURE_BYTES;
    private static final String UNAVAILABLE;

    static {
        MethodHandle call = null;
        MethodHandle segmentOf = null;
        MethodHandle addressOf = null;
        int errnoAt = 0;
        int captureBytes = 0;
        String unavailable = null;
        if (Runtime.version().feature() < 22) {
            unavailable = "it needs JDK 22 or later (java.lang.foreign, to call process_vm_readv); this is JDK "
                    + Runtime.version().feature();
        } else {
            try {
                Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
                Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");
                Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
                Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
                Class<?> valueLayoutClass = Class.forName("java.lang.foreign.ValueLayout");
                Class<?> pathClass = Class.forName("java.lang.foreign.MemoryLayout$PathElement");
                Class<?> lookupClass = Class.forName("java.lang.foreign.SymbolLookup");
                Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
                Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
                Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
                Optional<?> symbol = (Optional<?>) lookupClass.getMethod("find", String.class)
                        .invoke(lookup, "process_vm_readv");
                if (symbol.isEmpty()) {
                    throw new IllegalStateException("the C library has no process_vm_readv");
                }
                Object jlong = valueLayoutClass.getField("JAVA_LONG").get(null);
                Object jint = valueLayoutClass.getField("JAVA_INT").get(null);
                Object pointer = valueLayoutClass.getField("ADDRESS").get(null);
                // ssize_t process_vm_readv(pid_t, const struct iovec *, unsigned long, const struct iovec *,
                //                          unsigned long, unsigned long)
                Object args = array(layoutClass, jint, pointer, jlong, pointer, jlong, jlong);
                Object descriptor = descriptorClass.getMethod("of", layoutClass, args.getClass())
                        .invoke(null, jlong, args);
                Object errno = optionClass.getMethod("captureCallState", String[].class)
                        .invoke(null, (Object) new String[] {"errno"});
                MethodHandle handle = (MethodHandle) linkerClass.getMethod("downcallHandle", segmentClass,
                        descriptorClass, array(optionClass).getClass())
                        .invoke(linker, symbol.get(), descriptor, array(optionClass, errno));
                call = handle.asType(MethodType.methodType(long.class, Object.class, int.class, Object.class,
                        long.class, Object.class, long.class, long.class));
                Object state = optionClass.getMethod("captureStateLayout").invoke(null);
                Object errnoPath = array(pathClass, pathClass.getMethod("groupElement", String.class).invoke(null, "errno"));
                errnoAt = (int) (long) layoutClass.getMethod("byteOffset", errnoPath.getClass()).invoke(state, errnoPath);
                captureBytes = (int) (long) layoutClass.getMethod("byteSize").invoke(state);
                MethodHandles.Lookup publicLookup = MethodHandles.publicLookup();
                MethodHandle ofBuffer = publicLookup.findStatic(segmentClass, "ofBuffer",
                        MethodType.methodType(segmentClass, Buffer.class));
                segmentOf = ofBuffer.asType(MethodType.methodType(Object.class, Buffer.class));
                addressOf = MethodHandles.filterReturnValue(ofBuffer,
                        publicLookup.findVirtual(segmentClass, "address", MethodType.methodType(long.class)));
            } catch (ReflectiveOperationException | RuntimeException e) {
                unavailable = "process_vm_readv could not be bound through java.lang.foreign (" + e + ")";
                call = null;
                segmentOf = null;
                addressOf = null;
            }
        }
        CALL = call;
        SEGMENT_OF = segmentOf;
        ADDRESS_OF = addressOf;
        ERRNO_AT = errnoAt;
        CAPTURE_BYTES = captureBytes;
        UNAVAILABLE = unavailable;
    }

    /** A calling thread's two iovecs (this process's range, the peer's) and its errno, in native memory. */
    private static final class Vectors {
        final ByteBuffer iov = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
        final ByteBuffer capture = ByteBuffer.allocateDirect(Math.max(8, CAPTURE_BYTES)).order(ByteOrder.nativeOrder());
        final Object local = segment(iov.slice(0, 16));
        final Object remote = segment(iov.slice(16, 16));
        final Object captured = segment(capture);
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
        if (ADDRESS_OF == null || !buffer.isDirect()) {
            return 0;
        }
        try {
            return (long) ADDRESS_OF.invokeExact((Buffer) buffer);
        } catch (Throwable e) {
            return 0;
        }
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
        v.iov.putLong(0, local).putLong(8, length).putLong(16, address).putLong(24, length);
        long copied;
        try {
            copied = (long) CALL.invokeExact(v.captured, (int) pid, v.local, 1L, v.remote, 1L, 0L);
        } catch (Throwable e) {
            throw new IOException("process_vm_readv failed: " + e, e);
        } finally {
            java.lang.ref.Reference.reachabilityFence(dst); // its memory stays until the kernel is done with it
        }
        if (copied < 0) {
            throw new IOException(errno(v.capture.getInt(ERRNO_AT)));
        }
        if (copied > length) {
            throw new IOException("process_vm_readv says it copied " + copied + " of " + length + " bytes");
        }
        dst.position(dst.position() + (int) copied);
        return (int) copied;
    }

    private static String errno(int errno) {
        return switch (errno) {
            case 1 -> "EPERM: this process may not read that one's memory (it needs the same user and a Yama "
                    + "ptrace_scope of 0, or the capability CAP_SYS_PTRACE)";
            case 3 -> "ESRCH: no such process (it has exited)";
            case 12 -> "ENOMEM";
            case 14 -> "EFAULT: an address outside the memory that process has mapped";
            case 22 -> "EINVAL";
            default -> "errno " + errno;
        };
    }

    private static Object segment(ByteBuffer b) {
        try {
            return SEGMENT_OF == null ? null : (Object) SEGMENT_OF.invokeExact((Buffer) b);
        } catch (Throwable e) {
            throw new IllegalStateException("no memory segment for a direct buffer", e);
        }
    }

    private static Object array(Class<?> component, Object... elements) {
        Object a = Array.newInstance(component, elements.length);
        for (int i = 0; i < elements.length; i++) {
            Array.set(a, i, elements[i]);
        }
        return a;
    }
}
