package io.jcoll.shm;

import io.jcoll.spi.SharedRegions;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * This process's shared allocations ({@link SharedRegions}, {@link io.jcoll.SharedMemory}) by address: which one,
 * if any, a buffer a rank publishes for its peers lies in, so that they can map it ({@link PeerRegions}) rather than
 * read it with {@link ProcessVm}. The index is rebuilt only when an allocation is made or freed; a lookup scans
 * it (a process holds a few allocations) and counts a region only while its mapping is reachable, so that memory
 * the garbage collector freed and the system handed out again is never taken for it.
 */
final class OwnRegions {

    /** Where a published buffer's allocation starts in this process, the descriptor peers open it by, its id. */
    record Found(long base, int fd, long id) {
    }

    private record Entry(long base, long end, SharedRegions.Region region) {
    }

    private static volatile long version = -1;
    private static volatile Entry[] index = new Entry[0];

    private OwnRegions() {
    }

    /**
     * The live shared allocation that holds {@code [address, address + length)}, or null where none does or its
     * descriptor is unknown (no peer could open it).
     */
    static Found find(long address, long length) {
        if (address == 0) {
            return null;
        }
        for (Entry e : current()) {
            if (address >= e.base && address + length <= e.end && e.region.fd() >= 0
                    && e.region.mapping().get() != null) {
                return new Found(e.base, e.region.fd(), e.region.id());
            }
        }
        return null;
    }

    /** A phrase naming this process's allocation that another process cut short, or null where none is. */
    static String damage() {
        for (Entry e : current()) {
            try {
                long size = e.region.channel().size();
                if (size < e.region.bytes()) {
                    return "this rank's shared buffer (file descriptor " + e.region.fd() + ") was truncated by another"
                            + " process to " + size + " of its " + e.region.bytes() + " bytes";
                }
            } catch (IOException | RuntimeException ignored) {
                // closed meanwhile: freed, not damaged
            }
        }
        return null;
    }

    private static Entry[] current() {
        long now = SharedRegions.version();
        if (now != version) {
            synchronized (OwnRegions.class) {
                if (now != version) {
                    List<SharedRegions.Region> live = SharedRegions.live();
                    Entry[] fresh = new Entry[live.size()];
                    int n = 0;
                    for (SharedRegions.Region r : live) {
                        ByteBuffer mapping = r.mapping().get();
                        long base = mapping == null ? 0 : ProcessVm.address(mapping);
                        if (base != 0) {
                            fresh[n++] = new Entry(base, base + r.bytes(), r);
                        }
                    }
                    index = java.util.Arrays.copyOf(fresh, n);
                    version = now;
                }
            }
        }
        return index;
    }
}
