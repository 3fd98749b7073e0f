package io.jcoll.shm;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;

/**
 * A file mapped read-write into memory, and unmapped when asked rather than when the collector finds the buffer.
 *
 * <p>From JDK 22 the mapping belongs to a shared {@code java.lang.foreign.Arena}, which {@link #unmap} closes: a
 * thread that touches the buffer afterwards gets an {@link IllegalStateException}, not a crash. Before that, the
 * only way is {@code sun.misc.Unsafe.invokeCleaner}, which JDK 24 and later warn about on the error stream at its
 * first use; where neither is offered the collector unmaps. Both are reached reflectively, so that the library
 * still compiles for, and runs on, Java 17.
 */
abstract class FileMapping {

    /** Whether mappings go through an arena: from JDK 22, where java.lang.foreign is final. */
    private static final boolean ARENAS = Runtime.version().feature() >= 22 && Arenas.usable();

    private final ByteBuffer buffer;

    private FileMapping(ByteBuffer buffer) {
        this.buffer = buffer.order(ByteOrder.nativeOrder());
    }

    /** Maps {@code size} bytes of {@code channel} from its start; the mapping outlives the channel. */
    static FileMapping map(FileChannel channel, long size) throws IOException {
        return ARENAS ? Arenas.mapShared(channel, size) : new Cleaned(channel.map(FileChannel.MapMode.READ_WRITE, 0, size));
    }

    /** The whole mapping, in native byte order. */
    final ByteBuffer buffer() {
        return buffer;
    }

    /** Unmaps now; the caller guarantees that no thread touches the mapping any more. Called at most once. */
    abstract void unmap();

    /**
     * Whether {@link #unmap} is safe while another thread may still touch the mapping (it then gets an exception)
     * rather than a crash of the JVM: an arena's mapping, which nothing but {@link #unmap} ever frees.
     */
    abstract boolean unmapsSafely();

    /** A mapping owned by a shared arena (JDK 22 and later). */
    private static final class Arenas extends FileMapping {
        private static final MethodHandle OF_SHARED;
        private static final MethodHandle MAP;
        private static final MethodHandle AS_BYTE_BUFFER;
        private static final MethodHandle CLOSE;

        static {
            MethodHandle ofShared = null;
            MethodHandle map = null;
            MethodHandle asByteBuffer = null;
            MethodHandle close = null;
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                Class<?> arenaType = Class.forName("java.lang.foreign.Arena");
                Class<?> segmentType = Class.forName("java.lang.foreign.MemorySegment");
                ofShared = lookup.findStatic(arenaType, "ofShared", MethodType.methodType(arenaType));
                map = lookup.findVirtual(FileChannel.class, "map", MethodType.methodType(segmentType,
                        FileChannel.MapMode.class, long.class, long.class, arenaType));
                asByteBuffer = lookup.findVirtual(segmentType, "asByteBuffer", MethodType.methodType(ByteBuffer.class));
                close = lookup.findVirtual(arenaType, "close", MethodType.methodType(void.class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                close = null; // the legacy way, then
            }
            OF_SHARED = ofShared;
            MAP = map;
            AS_BYTE_BUFFER = asByteBuffer;
            CLOSE = close;
        }

        private final Object arena;

        private Arenas(ByteBuffer buffer, Object arena) {
            super(buffer);
            this.arena = arena;
        }

        static boolean usable() {
            return CLOSE != null;
        }

        static FileMapping mapShared(FileChannel channel, long size) throws IOException {
            Object arena = invoke(() -> OF_SHARED.invoke());
            try {
                Object segment = invoke(() -> MAP.invoke(channel, FileChannel.MapMode.READ_WRITE, 0L, size, arena));
                return new Arenas((ByteBuffer) invoke(() -> AS_BYTE_BUFFER.invoke(segment)), arena);
            } catch (IOException | RuntimeException | Error e) {
                invoke(() -> CLOSE.invoke(arena));
                throw e;
            }
        }

        @Override
        boolean unmapsSafely() {
            return true;
        }

        @Override
        void unmap() {
            try {
                invoke(() -> CLOSE.invoke(arena));
            } catch (IOException | RuntimeException e) {
                // a thread still inside an access of it (a caller's bug): the collector unmaps it instead
            }
        }

        private interface Invocation {
            Object run() throws Throwable;
        }

        /** A method handle's call, its checked exceptions narrowed to what this class's callers handle. */
        private static Object invoke(Invocation invocation) throws IOException {
            try {
                return invocation.run();
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }

    /** A {@link java.nio.MappedByteBuffer} unmapped through {@code sun.misc.Unsafe.invokeCleaner} (JDK 17-21). */
    private static final class Cleaned extends FileMapping {
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

        private final ByteBuffer mapped;

        private Cleaned(ByteBuffer mapped) {
            super(mapped);
            this.mapped = mapped;
        }

        @Override
        boolean unmapsSafely() {
            return false;
        }

        @Override
        void unmap() {
            if (INVOKE_CLEANER == null) {
                return;
            }
            try {
                INVOKE_CLEANER.invoke(UNSAFE, mapped);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // left to the collector
            }
        }
    }
}
