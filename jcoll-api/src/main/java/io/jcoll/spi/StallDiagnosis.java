package io.jcoll.spi;

import io.jcoll.bootstrap.Store;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.JcollException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds who really stalled a collective. When one rank stops, every other rank
 * times out at about the same moment, each waiting on its own neighbour, so
 * "the peer I waited for" is usually wrong. Each failing rank records in the
 * rendezvous store that it reached the collective; a rank that timed out then
 * waits a moment for the others' records, and names the ranks that never
 * reached it.
 */
public final class StallDiagnosis {

    private final Store store;
    private final int rank;
    private final int size;
    private final Duration patience;

    public StallDiagnosis(Store store, int rank, int size, Duration timeout) {
        this.store = store;
        this.rank = rank;
        this.size = size;
        // the waiting ranks time out within moments of each other (their deadlines differ by the skew with which
        // they entered the call); half a second keeps a failure's report within JCOLL_TIMEOUT + 1 s
        this.patience = timeout.dividedBy(2).compareTo(Duration.ofMillis(500)) < 0 ? timeout.dividedBy(2)
                : Duration.ofMillis(500);
    }

    /** Records that this rank reached {@code call} and failed in it. Best effort. */
    public void reached(Call call) {
        try {
            store.set(key(call, rank), new byte[] {1});
        } catch (RuntimeException ignored) {
            // the store may be gone with rank 0; the diagnosis then stays with what this rank saw
        }
    }

    /** The timeout restated in terms of the ranks that never reached the collective, or the original if all did. */
    public JcollException explain(Call call, CollectiveTimeoutException timeout) {
        reached(call);
        List<Integer> absent = new ArrayList<>();
        long deadline = System.nanoTime() + patience.toNanos();
        try {
            for (int r = 0; r < size; r++) {
                if (r != rank && store.get(key(call, r), Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))).isEmpty()) {
                    absent.add(r);
                }
            }
        } catch (RuntimeException storeGone) {
            return timeout;
        }
        if (absent.isEmpty() || absent.size() == size - 1 && size > 2) {
            return timeout; // everyone was there (slow, not stalled), or no one answered: nothing better to say
        }
        return new CollectiveTimeoutException(call.operation().label(), rank, absent.get(0), "rank(s) " + absent
                + " never reached " + call.describe() + " within JCOLL_TIMEOUT while the other ranks waited in it "
                + "(stopped, hung, or busy elsewhere); this rank saw: " + timeout.getMessage(), timeout);
    }

    private static String key(Call call, int rank) {
        return "failed-in/" + call.sequence() + "/" + rank;
    }
}
