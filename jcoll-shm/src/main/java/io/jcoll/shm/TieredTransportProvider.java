package io.jcoll.shm;

import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.spi.TransportProvider;

/**
 * Finds the two-tier transport ({@link TieredTransport}: shared memory within each host, TCP between hosts) for
 * {@link java.util.ServiceLoader}. Usable on a rank that shares its host with other ranks of a job that spans
 * several hosts, where the segment directory can hold its host's segment; preferred to TCP alone, after shared
 * memory alone (which serves jobs of one host). Whether every host holds as many ranks is known only once the
 * ranks have connected: where they do not, opening fails on every rank alike and {@code auto} takes TCP.
 */
public final class TieredTransportProvider implements TransportProvider {

    public static final String NAME = "shm+tcp";
    public static final int PREFERENCE = 80;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int preference() {
        return PREFERENCE;
    }

    @Override
    public Availability probe(Settings settings) {
        int size = settings.getInt("JCOLL_WORLD_SIZE", 1);
        int local = settings.getInt("JCOLL_LOCAL_WORLD_SIZE", size);
        if (local == size) {
            return Availability.unusable("every rank is on this host: shared memory alone serves it");
        }
        if (local < 2) {
            return Availability.unusable("this host runs one rank of the job: nothing to share in memory");
        }
        if (settings.get("JCOLL_TCP_HIERARCHY").filter("0"::equals).isPresent()) {
            return Availability.unusable("JCOLL_TCP_HIERARCHY=0 asks for one ring over all ranks");
        }
        return ShmTransportProvider.segmentAvailability(settings, local, dir -> "AllReduce in two tiers: shared "
                + "memory in " + dir + " among the " + local + " ranks of this host, TCP between hosts (host memory)");
    }

    @Override
    public Transport open(TransportContext context) {
        return TieredTransport.open(context);
    }
}
