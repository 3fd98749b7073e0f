package io.jcoll.shm;

import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.spi.TransportProvider;

import java.util.Map;

/**
 * Finds the shared-memory transport for {@link java.util.ServiceLoader}. Usable when every rank of the job is on
 * this host (as the ranks' host identities, exchanged through the store, say) and the segment directory can hold
 * a segment; preferred to TCP, after MPI (under mpirun, MPI's own shared-memory path is already there).
 */
public final class ShmTransportProvider implements TransportProvider {

    public static final int PREFERENCE = 70;

    @Override
    public String name() {
        return "shm";
    }

    @Override
    public int preference() {
        return PREFERENCE;
    }

    @Override
    public Availability probe(Settings settings) {
        int size = settings.getInt("JCOLL_WORLD_SIZE", 1);
        int local = settings.getInt("JCOLL_LOCAL_WORLD_SIZE", size);
        if (local != size) {
            return Availability.unusable("shared memory serves the ranks of one host, and only " + local + " of the "
                    + size + " ranks are on this one");
        }
        return segmentAvailability(settings, size, dir -> "pure Java through shared memory in " + dir
                + ", every rank being on this host (host memory)");
    }

    /**
     * Whether the segment directory can hold the segment of {@code ranks} ranks (the layout the settings give
     * checked too); usable with {@code usable}'s account of the directory and the segment's facts, else why not.
     */
    static Availability segmentAvailability(Settings settings, int ranks,
                                            java.util.function.Function<java.nio.file.Path, String> usable) {
        ShmDirectory dir = ShmDirectory.of(settings);
        Layout layout;
        try {
            layout = Layout.from(settings, ranks, dir.room(), ShmTransport.crewed(settings, ranks));
        } catch (IllegalArgumentException e) {
            return Availability.unusable(e.getMessage());
        }
        String why = dir.unusableReason(layout.totalBytes());
        if (why != null) {
            return Availability.unusable(why);
        }
        return Availability.usable(usable.apply(dir.path())).withFacts(Map.of("shm_dir", dir.path().toString(),
                "shm_segment_bytes", Long.toString(layout.totalBytes())));
    }

    @Override
    public Transport open(TransportContext context) {
        return ShmTransport.open(context);
    }
}
