package io.jcoll.mpi;

import com.sun.jna.Memory;
import io.jcoll.exceptions.BootstrapException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.spi.Availability;
import io.jcoll.spi.RendezvousExchange;
import io.jcoll.spi.Settings;


/**
 * Carries rank 0's rendezvous address to every rank of an {@code mpirun} job
 * with one {@code MPI_Bcast} on a duplicate of {@code MPI_COMM_WORLD}.
 */
public final class MpiRendezvousExchange implements RendezvousExchange {

    private final MpiRuntime runtime;
    private final long comm;
    private final int rank;

    private MpiRendezvousExchange(MpiRuntime runtime, long comm, int rank) {
        this.runtime = runtime;
        this.comm = comm;
        this.rank = rank;
    }

    /** Found by {@link java.util.ServiceLoader}. */
    public static final class Provider implements RendezvousExchange.Provider {
        @Override
        public String name() {
            return "mpi";
        }

        @Override
        public Availability probe(String launcher, int size, Settings settings) {
            if (launcher == null) { // Bootstrap asks only for launcher-placed jobs; JobConfig's launchers are MPI's and Slurm's
                return Availability.unusable("the job was not placed by an MPI launcher");
            }
            MpiLibrary.Status s = MpiLibrary.load(settings);
            return s.available() ? Availability.usable(s.library().describe()) : Availability.unusable(s.reason());
        }

        @Override
        public RendezvousExchange open(Settings settings) {
            int rank = settings.getInt("RANK", -1);
            MpiRuntime runtime = MpiRuntime.get(settings, rank);
            return new MpiRendezvousExchange(runtime, runtime.duplicateWorld(rank), rank);
        }
    }

    @Override
    public byte[] broadcastFromRankZero(byte[] message) {
        if (message.length > MAX_BYTES - 4) {
            throw new IllegalArgumentException("a rendezvous message holds at most " + (MAX_BYTES - 4) + " bytes");
        }
        int[] world = runtime.worldRankAndSize(rank);
        try (Memory buffer = new Memory(MAX_BYTES)) {
            buffer.clear();
            if (world[0] == 0) {
                buffer.setInt(0, message.length);
                buffer.write(4, message, 0, message.length);
            }
            runtime.mpi.check(MpiNative.MPI_Bcast(MpiLibrary.address(buffer), MAX_BYTES, runtime.mpi.abi.bytes(), 0, comm),
                    "MPI_Bcast", rank);
            int length = buffer.getInt(0);
            if (length < 0 || length > MAX_BYTES - 4) {
                throw new BootstrapException("bootstrap", rank, 0, "rank 0's rendezvous message through MPI has a bad "
                        + "length (" + length + ")");
            }
            return buffer.getByteArray(4, length);
        }
    }

    @Override
    public void close() {
        try {
            runtime.free(comm, rank);
        } catch (JcollException e) {
            // the exchange is over; a communicator that will not free is not worth failing the job for
        }
    }
}
