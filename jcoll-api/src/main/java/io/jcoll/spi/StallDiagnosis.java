package io.jcoll.spi;

import io.jcoll.bootstrap.Store;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.JcollException;

import java.nio.charset.StandardCharsets;
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

    /** Records that this rank reached {@code call} and failed in it, and when. Best effort. */
    public void reached(Call call) {
        reachedAt(call);
    }

    private long reachedAt(Call call) {
        long now = System.currentTimeMillis();
        try {
            // the first record stays: a rank that fails twice in one call keeps its first time
            var earlier = store.get(key(call, rank), Duration.ZERO);
            if (earlier.isPresent()) {
                return parse(earlier.get());
            }
            store.set(key(call, rank), Long.toString(now).getBytes(StandardCharsets.UTF_8));
        } catch (RuntimeException ignored) {
            // the store may be gone with rank 0; the diagnosis then stays with what this rank saw
        }
        return now;
    }

    /**
     * A peer failure the transport could not attribute (NCCL reports "a remote
     * process exited or there was a network error", not which), restated with
     * the rank behind it: a rank that never recorded a failure of this call (it
     * died), or else the rank that failed first (its connections broke first).
     *
     * @param call    the failed call
     * @param failure what this rank saw, with no peer named
     * @return the failure naming a rank, or {@code failure} when the records say nothing better
     */
    public JcollException attribute(Call call, JcollException failure) {
        long mine = reachedAt(call);
        if (failure.peer() != JcollException.NONE) {
            return failure;
        }
        List<Integer> absent = new ArrayList<>();
        int first = rank;
        long firstAt = mine;
        long deadline = System.nanoTime() + patience.toNanos();
        try {
            for (int r = 0; r < size; r++) {
                if (r == rank) {
                    continue;
                }
                var record = store.get(key(call, r), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                if (record.isEmpty()) {
                    absent.add(r);
                } else {
                    long at = parse(record.get());
                    if (at < firstAt) {
                        firstAt = at;
                        first = r;
                    }
                }
            }
        } catch (RuntimeException storeGone) {
            return failure;
        }
        if (!absent.isEmpty() && absent.size() < size - 1 || size == 2 && absent.size() == 1) {
            return new io.jcoll.exceptions.PeerFailureException(call.operation().label(), rank, absent.get(0),
                    "rank(s) " + absent + " never reported this failure (their processes probably died); this rank "
                            + "saw: " + failure.getMessage(), failure);
        }
        if (absent.isEmpty() && first != rank) {
            return new io.jcoll.exceptions.PeerFailureException(call.operation().label(), rank, first, "rank " + first
                    + " failed first in " + call.describe() + " (its connections or process broke before the others'); "
                    + "this rank saw: " + failure.getMessage(), failure);
        }
        return failure;
    }

    private static long parse(byte[] record) {
        try {
            return Long.parseLong(new String(record, StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
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
