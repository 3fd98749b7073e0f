package io.jcoll.shm;

import io.jcoll.spi.SharedRegions;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The peers' shared allocations ({@link io.jcoll.SharedMemory}) that this rank has mapped, and which of them each
 * peer's current call reads from: a peer publishes, beside an address, the allocation it lies in (its base in the
 * peer, its descriptor there and its id, {@link Control#publishSource}), and this rank opens the file through
 * {@code /proc/<pid>/fd/<fd>}, checks that its header holds that id, and maps it read-only once; its reads of that
 * memory are then a plain copy ({@link #view}). Where a file cannot be opened or is not the one named, the rank
 * reads with {@link ProcessVm} as for any buffer: how a rank reads is its own business, the phases of the call
 * are the same either way. Used by one rank's threads: {@link #see} by the rank's own, before it shares the work.
 */
final class PeerRegions {

    private static final System.Logger LOG = System.getLogger(PeerRegions.class.getName());
    /** Mappings kept; past it all are let go (the garbage collector unmaps them) and mapped again as needed. */
    private static final int KEPT = 64;
    static final int SOURCE = 0;
    static final int OUTPUT = 1;

    private record Mapped(ByteBuffer map, FileChannel channel, String name) {
    }

    private final long[] pids;
    private final Map<Long, Mapped> mapped = new HashMap<>();
    private final Set<Long> unmappable = new HashSet<>();
    private final long[][] base;      // by slot, by peer: the current call's allocation's base in the peer
    private final Mapped[][] current; // by slot, by peer: its mapping here, or null
    private boolean told;             // whether a failure to map has been logged (once a communicator)

    PeerRegions(long[] pids) {
        this.pids = pids.clone();
        this.base = new long[2][pids.length];
        this.current = new Mapped[2][pids.length];
    }

    /**
     * That {@code peer}'s current call reads, in {@code slot} ({@link #SOURCE}, {@link #OUTPUT}), from the
     * allocation {@code region} names (null: none); maps it where it has not been.
     */
    synchronized void see(int peer, int slot, OwnRegions.Found region) {
        current[slot][peer] = region == null ? null : mapping(peer, region);
        base[slot][peer] = region == null ? 0 : region.base();
    }

    /**
     * {@code [address, address + length)} of {@code peer}'s memory as a view of this rank's mapping, or null where
     * that range is in no allocation of the peer's current call that this rank has mapped.
     */
    ByteBuffer view(int peer, long address, int length) {
        for (int slot = SOURCE; slot <= OUTPUT; slot++) {
            Mapped m = current[slot][peer];
            if (m == null) {
                continue;
            }
            long offset = address - base[slot][peer];
            if (offset >= SharedRegions.HEADER_BYTES && offset + length <= m.map.capacity()) {
                return m.map.slice((int) offset, length).order(ByteOrder.nativeOrder());
            }
        }
        return null;
    }

    /** A phrase naming a mapped allocation of a peer that another process cut short, or null where none is. */
    synchronized String damage() {
        for (Mapped m : mapped.values()) {
            try {
                long size = m.channel.size();
                if (size < m.map.capacity()) {
                    return m.name + " was truncated by another process to " + size + " of its " + m.map.capacity()
                            + " bytes";
                }
            } catch (IOException | RuntimeException ignored) {
                // closed: let go
            }
        }
        return null;
    }

    private Mapped mapping(int peer, OwnRegions.Found region) {
        Mapped m = mapped.get(region.id());
        if (m != null || unmappable.contains(region.id())) {
            return m;
        }
        if (mapped.size() >= KEPT) {
            letGo();
        }
        String name = "rank " + peer + "'s shared buffer (" + "/proc/" + pids[peer] + "/fd/" + region.fd() + ")";
        try {
            m = open(name, Path.of("/proc/" + pids[peer] + "/fd/" + region.fd()), region.id());
            mapped.put(region.id(), m);
            return m;
        } catch (IOException | RuntimeException e) {
            if (!told) { // the call still works, through process_vm_readv: said once, not on every call
                told = true;
                LOG.log(System.Logger.Level.WARNING, "could not map " + name + ", read with process_vm_readv "
                        + "instead (said once a communicator): " + e.getMessage());
            }
            if (unmappable.size() >= KEPT) {
                unmappable.clear();
            }
            unmappable.add(region.id());
            return null;
        }
    }

    private static Mapped open(String name, Path path, long id) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        try {
            long size = ch.size();
            if (size < SharedRegions.HEADER_BYTES || size > Integer.MAX_VALUE) {
                throw new IOException("it has " + size + " bytes");
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
            map.order(ByteOrder.nativeOrder());
            if (map.getLong(0) != SharedRegions.MAGIC || map.getLong(SharedRegions.ID_AT) != id) {
                throw new IOException("it is not the allocation the rank named (another file)");
            }
            return new Mapped(map, ch, name);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private void letGo() {
        for (Mapped m : mapped.values()) {
            try {
                m.channel.close();
            } catch (IOException ignored) {
                // the mapping stays until collected either way
            }
        }
        mapped.clear();
    }

    /** Closes every file this rank opened (the mappings go with the garbage collector). */
    void close() {
        letGo();
    }
}
