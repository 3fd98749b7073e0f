package io.jcoll.spi;

import io.jcoll.bootstrap.Store;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.exceptions.JcollException;
import io.jcoll.exceptions.PeerFailureException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Finds who really stalled a collective. When one rank stops, every other rank
 * times out at about the same moment, each waiting on its own neighbour, so
 * "the peer I waited for" is usually wrong. Each failing rank records in the
 * rendezvous store that it reached the collective; a rank that timed out then
 * waits a moment for the others' records, and names the ranks that never
 * reached it. When no other rank has recorded anything, it waits longer for a
 * rank that is already in the next call (whose deadline comes later), before
 * concluding that everyone else is silent.
 */
public final class StallDiagnosis {

    /** A running rank notices its deadline within milliseconds; one that noticed this much later was not running. */
    private static final long LATE_MILLIS = 200;

    /** The longest wait for a first record from any other rank, when none came within the patience. */
    private static final Duration MAX_STRAGGLE = Duration.ofSeconds(10);

    /** A counter of the records written, so that a rank waiting for any record asks once per poll, not per rank. */
    private static final String COUNT = "failed/count";
    private static final long POLL_MILLIS = 20;

    private final Store store;
    private final int rank;
    private final int size;
    private final Duration patience;
    private final Duration straggle;

    public StallDiagnosis(Store store, int rank, int size, Duration timeout) {
        // a rank cut off from rank 0 would otherwise wait on each unanswered query for the store client's slack
        // (30 s): the diagnosis must end within JCOLL_TIMEOUT + 2 s whatever the network did
        this.store = store.bounded(Duration.ofSeconds(1));
        this.rank = rank;
        this.size = size;
        // the waiting ranks time out within moments of each other (their deadlines differ by the skew with which
        // they entered the call); half a second keeps a failure's report within JCOLL_TIMEOUT + 1 s
        this.patience = timeout.dividedBy(2).compareTo(Duration.ofMillis(500)) < 0 ? timeout.dividedBy(2)
                : Duration.ofMillis(500);
        // a rank ahead in the next call times out later by that call's start: at most one call, and so at most one
        // timeout; capped so that a job where every other rank is gone still reports in bounded time
        this.straggle = timeout.compareTo(MAX_STRAGGLE) < 0 ? timeout : MAX_STRAGGLE;
    }

    /** Records that this rank reached {@code call} and failed in it, and when. Best effort. */
    public void reached(Call call) {
        reachedAt(call, 0);
    }

    /**
     * This rank's failure record: the call it failed in, when, and how long after the call's deadline it noticed
     * (a rank that was stopped notices only once it runs again); the first one stays.
     */
    private record Failure(long sequence, long millis, long lateMillis) {
        byte[] encode() {
            return (sequence + " " + millis + " " + lateMillis).getBytes(StandardCharsets.UTF_8);
        }

        static Failure decode(byte[] bytes) {
            try {
                String[] f = new String(bytes, StandardCharsets.UTF_8).split(" ");
                return new Failure(Long.parseLong(f[0]), Long.parseLong(f[1]), f.length > 2 ? Long.parseLong(f[2]) : 0);
            } catch (RuntimeException e) {
                return new Failure(-1, Long.MAX_VALUE, 0);
            }
        }
    }

    private long reachedAt(Call call, long lateMillis) {
        long now = System.currentTimeMillis();
        try {
            var earlier = store.get(key(rank), Duration.ZERO);
            if (earlier.isPresent()) {
                return Failure.decode(earlier.get()).millis();
            }
            store.set(key(rank), new Failure(call.sequence(), now, lateMillis).encode());
            store.add(COUNT, 1);
        } catch (RuntimeException ignored) {
            // the store may be gone with rank 0; the diagnosis then stays with what this rank saw
        }
        return now;
    }

    /**
     * The other ranks' failure records, waiting up to the patience for each; a rank without one is absent. When no
     * other rank has recorded anything by then and there are more than two ranks, this rank may be the only one
     * whose deadline has passed: the others can be in the next call (they finished this one before its stalled rank
     * stopped), which started later and so times out later. It then waits up to the straggle for a first record
     * before looking again, so that a rank ahead is not taken for one that is silent.
     *
     * @return records by rank (null where absent, and for this rank), or null if the store is gone
     */
    private Failure[] records() {
        try {
            Failure[] byRank = recordsWithin(patience);
            if (size > 2 && Arrays.stream(byRank).allMatch(Objects::isNull) && firstOtherRecordWithin(straggle)) {
                byRank = recordsWithin(patience);
            }
            return byRank;
        } catch (RuntimeException storeGone) {
            return null;
        }
    }

    private Failure[] recordsWithin(Duration wait) {
        Failure[] byRank = new Failure[size];
        long deadline = System.nanoTime() + wait.toNanos();
        for (int r = 0; r < size; r++) {
            if (r != rank) {
                byRank[r] = store.get(key(r), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))
                        .map(Failure::decode).orElse(null);
            }
        }
        return byRank;
    }

    /** Whether a rank besides this one records a failure within {@code wait}. */
    private boolean firstOtherRecordWithin(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (store.add(COUNT, 0) < 2) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /**
     * A peer failure the transport could not attribute (NCCL reports "a remote
     * process exited or there was a network error", not which), restated with
     * the rank behind it: a rank that never recorded a failure (it died), or
     * else the rank that failed first (its connections broke first).
     *
     * @param call    the failed call
     * @param failure what this rank saw, with no peer named
     * @return the failure naming a rank, or {@code failure} when the records say nothing better
     */
    public JcollException attribute(Call call, JcollException failure) {
        long mine = reachedAt(call, 0);
        if (failure.peer() != JcollException.NONE) {
            return failure;
        }
        Failure[] byRank = records();
        if (byRank == null) {
            return failure;
        }
        List<Integer> absent = new ArrayList<>();
        int first = rank;
        long firstAt = mine;
        for (int r = 0; r < size; r++) {
            if (r == rank) {
                continue;
            }
            if (byRank[r] == null) {
                absent.add(r);
            } else if (byRank[r].millis() < firstAt) {
                firstAt = byRank[r].millis();
                first = r;
            }
        }
        if (!absent.isEmpty() && (absent.size() < size - 1 || size == 2)) {
            return new PeerFailureException(call.operation().label(), rank, absent.get(0),
                    "rank(s) " + absent + " never reported this failure (their processes probably died); this rank "
                            + "saw: " + failure.getMessage(), failure);
        }
        if (absent.isEmpty() && first != rank) {
            return new PeerFailureException(call.operation().label(), rank, first, "rank " + first
                    + " failed first in " + call.describe() + " (its connections or process broke before the others'); "
                    + "this rank saw: " + failure.getMessage(), failure);
        }
        return failure;
    }

    /** As {@link #explain(Call, CollectiveTimeoutException, long)} for a caller that does not know the deadline. */
    public JcollException explain(Call call, CollectiveTimeoutException timeout) {
        return explain(call, timeout, System.nanoTime());
    }

    /**
     * The timeout restated in terms of the ranks that stalled it, or the original when the records cannot tell.
     * The stalled ranks are those that recorded no failure at all while the others' waits ran out (stopped, hung,
     * dead or busy elsewhere); else those that noticed their own deadline late (they were not running: a stopped
     * rank that its launcher continued as the job ended); else those that never reached this call.
     *
     * @param deadlineNanos the call's deadline ({@link System#nanoTime()}), to record how late this rank noticed it
     */
    public JcollException explain(Call call, CollectiveTimeoutException timeout, long deadlineNanos) {
        reachedAt(call, Math.max(0, (System.nanoTime() - deadlineNanos) / 1_000_000));
        Failure[] byRank = records();
        if (byRank == null) {
            return timeout;
        }
        List<Integer> silent = new ArrayList<>();
        List<Integer> late = new ArrayList<>();
        List<Integer> behind = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (r == rank) {
                continue;
            }
            if (byRank[r] == null) {
                silent.add(r);
                continue;
            }
            if (byRank[r].lateMillis() > LATE_MILLIS) {
                late.add(r);
            }
            if (byRank[r].sequence() < call.sequence()) {
                behind.add(r);
            }
        }
        List<Integer> stalled = !silent.isEmpty() ? silent : !late.isEmpty() ? late : behind;
        if (stalled.isEmpty() || stalled.size() == size - 1 && size > 2) {
            return timeout; // everyone was there (slow, not stalled), or no one answered: nothing better to say
        }
        return new CollectiveTimeoutException(call.operation().label(), rank, stalled.get(0), "rank(s) " + stalled
                + " never reached " + call.describe() + " within JCOLL_TIMEOUT while the other ranks waited in it "
                + "(stopped, hung, or busy elsewhere); this rank saw: " + timeout.getMessage(), timeout);
    }

    private static String key(int rank) {
        return "failed/" + rank;
    }
}
