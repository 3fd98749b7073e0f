package io.jcoll.bootstrap;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The store's record of ranks whose processes ended, or that aborted their communicator. Every rank keeps its store connection open for the
 * whole job, so the kernel closes it the moment the process dies, whatever killed it; the store notes the
 * end of a connection whose rank never said it was leaving ({@link StoreProtocol#LEAVE}) as a death. That is
 * how ranks learn of a dead peer on transports that do not notice one themselves (NCCL over NVLink waits for
 * its timeout): a watcher blocks on the next record.
 *
 * <p>Records are numbered from 0 in the order they happened: {@code jcoll/departures/<n>} holds
 * {@code rank|kind|epochMillis|account}. A rank that hosts the store records its own orderly end as
 * {@link Kind#LEFT}, so that the store then going away is not mistaken for its death.
 */
public final class Departures {

    private static final String COUNT = "jcoll/departures/count";
    private static final String RECORD = "jcoll/departures/";

    /** How a rank's process left the job. */
    public enum Kind {
        /** Its store connection ended without its saying it was leaving: killed, crashed, or exited without close(). */
        DIED,
        /** It closed every communicator in order. */
        LEFT,
        /**
         * It aborted its communicator ({@code comm.abort()}): alive, but its calls will never come, so its peers end
         * theirs now rather than at their timeout.
         */
        ABORTED
    }

    /** One record. */
    public record Departure(int rank, Kind kind, long epochMillis, String account) {
    }

    private Departures() {
    }

    /** Appends a record; returns its index. */
    public static long record(Store store, int rank, Kind kind, String account) {
        long index = store.add(COUNT, 1) - 1;
        String value = rank + "|" + kind + "|" + System.currentTimeMillis() + "|" + account;
        store.set(RECORD + index, value.getBytes(StandardCharsets.UTF_8));
        return index;
    }

    /** The index the next record will have: a watcher starting now begins there. */
    public static long next(Store store) {
        return store.add(COUNT, 0);
    }

    /** Waits up to {@code wait} for record {@code index}. */
    public static Optional<Departure> await(Store store, long index, Duration wait) {
        return store.get(RECORD + index, wait).map(Departures::parse);
    }

    static Departure parse(byte[] value) {
        String[] f = new String(value, StandardCharsets.UTF_8).split("\\|", 4);
        if (f.length != 4) {
            throw new IllegalArgumentException("malformed departure record: " + new String(value, StandardCharsets.UTF_8));
        }
        return new Departure(Integer.parseInt(f[0]), Kind.valueOf(f[1]), Long.parseLong(f[2]), f[3]);
    }
}
