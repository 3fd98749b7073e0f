package io.jcoll.spi;

import java.nio.ByteBuffer;
import java.util.ServiceLoader;

/**
 * Where a transport's host stages come from. Plain direct memory by default;
 * page-locked memory where a GPU runtime on the class path provides it (as
 * {@code jcoll-native} does), because the GPU's copy engines read and write
 * page-locked memory directly, while pageable memory is first copied through
 * a driver buffer. Found with {@link ServiceLoader}, like transports.
 */
public interface HostMemory {

    /** A direct buffer of {@code bytes}, native byte order. */
    ByteBuffer allocate(int bytes);

    /** Returns memory from {@link #allocate}; buffers from elsewhere are ignored. */
    void free(ByteBuffer buffer);

    /** One phrase for reports: {@code page-locked (cudaMallocHost)}. */
    String describe();

    /** A source of page-locked memory, listed in {@code META-INF/services/io.jcoll.spi.HostMemory$Provider}. */
    interface Provider {
        /** Page-locked memory on this machine, or null where it cannot be had (no GPU, no runtime). */
        HostMemory pinned();
    }

    /** Direct memory from the JVM, freed by the garbage collector. */
    HostMemory DIRECT = new HostMemory() {
        @Override
        public ByteBuffer allocate(int bytes) {
            return ByteBuffer.allocateDirect(bytes).order(java.nio.ByteOrder.nativeOrder());
        }

        @Override
        public void free(ByteBuffer buffer) {
        }

        @Override
        public String describe() {
            return "direct (pageable)";
        }
    };

    /** Page-locked memory from the first provider that has it, else {@link #DIRECT}. */
    static HostMemory pinnedOrDirect() {
        for (Provider p : ServiceLoader.load(Provider.class)) {
            try {
                HostMemory m = p.pinned();
                if (m != null) {
                    return m;
                }
            } catch (RuntimeException | LinkageError e) {
                // a provider that cannot load its runtime here offers nothing
            }
        }
        return DIRECT;
    }
}
