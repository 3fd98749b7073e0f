package io.jcoll.spi;

/**
 * A short exchange between two processes over a transport's own data path, which the job-wide doctor runs between
 * every pair of hosts besides its TCP test of the data interfaces: a job on NCCL moves its bytes through NCCL's
 * network plugin (InfiniBand, RoCE, or its own sockets on the interface it chose), which can fail or crawl where
 * plain TCP between the same hosts is fine (one node's {@code libibverbs} missing, an interface excluded by
 * {@code NCCL_SOCKET_IFNAME}). Found with {@link java.util.ServiceLoader}, like transports.
 */
public interface PairExchange {

    /** {@return the path measured, as the report names it: {@code "nccl"}} */
    String name();

    /** {@return whether this process can take part (a GPU, the library), and why not} */
    Availability availability(Settings settings);

    /** {@return a fresh token that the pair's first side hands to the second through the store (NCCL's unique id)} */
    byte[] token();

    /**
     * Joins the pair named by {@code token} as {@code side} (0 or 1) and moves {@code bytes[0]} bytes from side 0 to
     * side 1, then {@code bytes[1]} bytes back, each timed by its receiver. Every wait ends by
     * {@code deadlineNanos} ({@link System#nanoTime()}): what has not finished by then is aborted and reported.
     *
     * @return how long this side took to receive what the other sent it
     * @throws Exception what went wrong, in words naming the step (joining, sending, receiving)
     */
    Received exchange(byte[] token, int side, long[] bytes, Settings settings, long deadlineNanos) throws Exception;

    /**
     * What one side received.
     *
     * @param bytes the bytes it received
     * @param nanos how long receiving them took
     */
    record Received(long bytes, long nanos) {
    }
}
