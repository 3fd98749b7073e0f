package io.jcoll.shm;

import io.jcoll.SharedMemory;
import io.jcoll.spi.SharedRegions;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A peer's shared allocation, as a rank sees it: mapped through {@code /proc/<pid>/fd} once its id matches the one
 * published, viewed only within the caller's memory (never the header, never past the end), and not at all where
 * the published id names another allocation or none. The "peer" is this process, as for thread ranks.
 */
class PeerRegionsTest {

    @Test
    void aPeersAllocationIsViewedWithinItsMemoryAndOnlyUnderItsId() {
        int bytes = 10_007;
        ByteBuffer theirs = SharedMemory.allocate(bytes);
        byte[] data = new byte[bytes];
        new SplittableRandom().nextBytes(data);
        theirs.put(0, data);
        SharedRegions.Region region = SharedRegions.live().stream()
                .filter(r -> r.bytes() == SharedRegions.HEADER_BYTES + bytes).findFirst().orElseThrow();
        long pid = ProcessHandle.current().pid();
        PeerRegions regions = new PeerRegions(new long[] {pid, pid});
        long base = 0x7f00_0000_0000L; // where the allocation starts in the peer: reads are taken relative to it
        long memory = base + SharedRegions.HEADER_BYTES;

        regions.see(1, PeerRegions.SOURCE, new OwnRegions.Found(base, region.fd(), region.id()));
        ByteBuffer view = regions.view(1, memory + 100, 50);
        for (int i = 0; i < 50; i++) {
            assertEquals(data[100 + i], view.get(i), "byte " + (100 + i));
        }
        assertEquals(data[bytes - 1], regions.view(1, memory + bytes - 1, 1).get(0));
        assertNull(regions.view(1, memory + bytes - 4, 8), "a view past the allocation's end");
        assertNull(regions.view(1, base + 8, 8), "a view of the header");
        assertNull(regions.view(0, memory, 8), "a view of another rank's memory");

        regions.see(1, PeerRegions.SOURCE, new OwnRegions.Found(base, region.fd(), region.id() ^ 2));
        assertNull(regions.view(1, memory, 8), "a view under another allocation's id");
        regions.see(1, PeerRegions.SOURCE, null);
        assertNull(regions.view(1, memory, 8), "a view where the peer published no allocation");
        regions.close();
        java.lang.ref.Reference.reachabilityFence(theirs);
    }
}
