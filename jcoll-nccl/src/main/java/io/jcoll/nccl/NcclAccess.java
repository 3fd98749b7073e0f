package io.jcoll.nccl;

/**
 * What the NCCL transport offers beyond the common API, through
 * {@code communicator.unwrap(NcclAccess.class)}: its GPU and CUDA stream, and
 * the choice of running the collectives on a stream of the caller's own
 * (a training framework's compute stream, so no extra synchronisation is needed).
 */
public interface NcclAccess {

    /** The GPU this rank's communicator uses. */
    int device();

    /** The raw {@code cudaStream_t} collectives are enqueued on. */
    long stream();

    /**
     * From now on, enqueues collectives on {@code cudaStream} (a raw handle; 0 is the
     * legacy default stream) instead of the communicator's own. Work already queued on
     * the previous stream is finished first, so issue order is kept. The stream stays
     * the caller's: jcoll never destroys it.
     */
    void useStream(long cudaStream);
}
