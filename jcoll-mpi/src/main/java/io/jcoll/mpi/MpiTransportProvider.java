package io.jcoll.mpi;

import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.spi.TransportProvider;

/**
 * Finds the MPI transport for {@link java.util.ServiceLoader}. It can run where
 * an MPI launcher placed this rank (so that MPI_COMM_WORLD is the job) and the
 * host's MPI library loads.
 */
public final class MpiTransportProvider implements TransportProvider {

    /**
     * After NCCL, before TCP: on one host MPI moves host memory through shared
     * memory, far faster than loopback TCP (benchmarks/RESULTS.md, "The MPI transport").
     */
    public static final int PREFERENCE = 50;

    @Override
    public String name() {
        return "mpi";
    }

    @Override
    public int preference() {
        return PREFERENCE;
    }

    @Override
    public Availability probe(Settings settings) {
        String launcher = io.jcoll.bootstrap.JobConfig.launcherOf(settings);
        if (launcher == null) {
            return Availability.unusable("this rank was not started by mpirun, mpiexec or srun, so MPI_COMM_WORLD "
                    + "is not this job");
        }
        MpiLibrary.Status s = MpiLibrary.load(settings);
        if (!s.available()) {
            return Availability.unusable(s.reason());
        }
        String shortfall = MpiRuntime.threadLevelShortfall(s.library());
        if (shortfall != null) {
            return Availability.unusable(shortfall);
        }
        return Availability.usable("MPI's own collectives on host memory, " + s.library().describe() + " (placed by "
                + launcher + "); preferred to tcp for host memory because it measured faster, most of all for small "
                + "messages (benchmarks/RESULTS.md)");
    }

    @Override
    public Transport open(TransportContext context) {
        return MpiTransport.open(context);
    }
}
