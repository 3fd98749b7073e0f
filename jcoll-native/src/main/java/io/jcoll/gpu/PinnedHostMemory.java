package io.jcoll.gpu;

import io.jcoll.spi.HostMemory;
import org.bytedeco.javacpp.Pointer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Page-locked host memory from {@code cudaMallocHost}, offered to host-memory
 * transports for their stages (see {@link HostMemory}), so that device buffers
 * moved by the TCP transport are copied by the GPU's copy engines directly.
 * Only where the CUDA runtime loaded and a GPU is visible.
 */
public final class PinnedHostMemory implements HostMemory, HostMemory.Provider {

    private static final PinnedHostMemory INSTANCE = new PinnedHostMemory();
    private final Set<Long> live = ConcurrentHashMap.newKeySet(); // addresses this allocator handed out

    @Override
    public HostMemory pinned() {
        return GpuRuntime.status().available() ? INSTANCE : null;
    }

    @Override
    public ByteBuffer allocate(int bytes) {
        ByteBuffer b = Cuda.mallocHost(bytes).order(ByteOrder.nativeOrder());
        live.add(new Pointer(b).address());
        return b;
    }

    @Override
    public void free(ByteBuffer buffer) {
        if (buffer != null && buffer.isDirect() && live.remove(new Pointer(buffer).address())) {
            Cuda.freeHost(buffer.duplicate().clear()); // from the base address, whatever the position
        }
    }

    @Override
    public String describe() {
        return "page-locked (cudaMallocHost)";
    }
}
