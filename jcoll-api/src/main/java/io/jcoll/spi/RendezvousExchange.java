package io.jcoll.spi;

/**
 * A launcher's own channel among a job's processes, used once per
 * communicator to hand rank 0's rendezvous address and token to every rank,
 * so that a job started by {@code mpirun} or {@code srun} needs no
 * {@code MASTER_ADDR}. Found with {@link java.util.ServiceLoader} (jcoll-mpi
 * provides one over MPI's broadcast), or handed to
 * {@link io.jcoll.Jcoll.Builder#rendezvous} by a caller that holds such a channel
 * (jcoll-spark, over a barrier stage's {@code allGather}).
 */
public interface RendezvousExchange extends AutoCloseable {

    /**
     * Every rank calls this at the same point; each gets rank 0's {@code message}
     * (the others' arguments are ignored). At most {@link #MAX_BYTES} bytes.
     */
    byte[] broadcastFromRankZero(byte[] message);

    /** Gives up what {@link Provider#open} took (MPI is finalized if jcoll started it and no one else uses it). */
    @Override
    void close();

    int MAX_BYTES = 1024;

    /** Offers an exchange for the launcher that started this process. */
    interface Provider {
        /** {@code mpi}: for messages. */
        String name();

        /** Whether it works for a job of {@code size} placed by {@code launcher} here, and why (not). */
        Availability probe(String launcher, int size, Settings settings);

        /** Joins the channel; every rank of the job calls it. */
        RendezvousExchange open(Settings settings);
    }
}
