package io.jcoll.probe;

import java.util.List;
import java.util.Optional;

/**
 * Whether the GPUDirect RDMA peer-memory module is loaded: {@code nvidia_peermem}
 * (shipped with the driver since 470) or the older {@code nv_peer_mem}. Without
 * one (or without DMA-BUF support in driver and kernel), an RDMA adapter cannot
 * read GPU memory, and NCCL stages every transfer through host memory.
 */
public final class PeerMemory {

    static final List<String> MODULES = List.of("nvidia_peermem", "nv_peer_mem");

    private PeerMemory() {
    }

    /** The loaded module and where it was seen, such as {@code nvidia_peermem (/sys/module)}. */
    public static Optional<String> loadedModule(SystemFiles files) {
        for (String module : MODULES) {
            if (files.exists("/sys/module/" + module)) {
                return Optional.of(module + " (/sys/module/" + module + ")");
            }
        }
        for (String line : files.lines("/proc/modules")) {
            String name = line.split("\\s+", 2)[0];
            if (MODULES.contains(name)) {
                return Optional.of(name + " (/proc/modules)");
            }
        }
        return Optional.empty();
    }
}
