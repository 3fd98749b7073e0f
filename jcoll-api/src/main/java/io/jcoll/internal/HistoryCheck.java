package io.jcoll.internal;

import io.jcoll.bootstrap.Store;
import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Signature;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;

/**
 * A rank's digest of every collective it issued ({@link Signature#foldInto}), compared with every other rank's
 * through the store when the communicator closes: for transports that do not compare calls as they run (NCCL's
 * kernels run whatever they are given), so that ranks that disagreed about a call (a broadcast's root, say) and
 * finished it without an error still learn of it, at the latest when they close. The TCP transport carries the
 * digest in its own frames, and MPI compares each call first, so they do not need this.
 *
 * <p>Closing waits for a peer's digest a short while only: a peer that exits without closing is passed over, not
 * waited for.
 */
final class HistoryCheck {

    /** How long a closing rank waits for the other ranks' digests, in all. */
    static final Duration PATIENCE = Duration.ofSeconds(2);

    private final Store store;
    private final int rank;
    private final int size;
    private long digest;
    private long pairTerms;   // this rank's terms of every uneven all-to-all's pair-count check, summed

    

    HistoryCheck(Store store, int rank, int size) {
        this.store = store;
        this.rank = rank;
        this.size = size;
    }

    /** Counts an issued call (a group's collectives one by one). */
    void issued(Call call) {
        if (call.operation().isCollective()) {
            digest = Signature.of(call).foldInto(digest);
        }
        if (call.vectors() != null) {
            pairTerms = (pairTerms + call.vectors().pairTerm(call.sequence(), rank)) % io.jcoll.spi.Vectors.PRIME;
        }
        for (Call member : call.members()) {
            issued(member);
        }
    }

    /**
     * Publishes this rank's digest and pair terms, and compares the others': the digests must be equal, and the
     * pair terms of every rank must sum to 0 ({@link io.jcoll.spi.Vectors#pairTerm}). Returns the first
     * disagreement, or null.
     */
    CollectiveMismatchException compare() {
        store.set(key(rank), ByteBuffer.allocate(16).putLong(0, digest).putLong(8, pairTerms).array());
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        long terms = pairTerms;
        boolean everyRank = true;
        for (int r = 0; r < size; r++) {
            if (r == rank) {
                continue;
            }
            Optional<byte[]> theirs = store.get(key(r), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            if (theirs.isEmpty() || theirs.get().length != 16) {
                everyRank = false;
                continue;
            }
            ByteBuffer b = ByteBuffer.wrap(theirs.get());
            if (b.getLong(0) != digest) {
                return new CollectiveMismatchException("close", rank, r, "rank " + r + " and this rank disagree about "
                        + "an earlier collective: one of them was called with other arguments on one of the two (a "
                        + "different root, count, type or op) and ran without an error, so their results may "
                        + "differ; every rank must issue the same collectives, in the same order, with the same "
                        + "arguments (found when closing; JCOLL_DEBUG=check finds it at the call)");
            }
            terms = (terms + b.getLong(8)) % io.jcoll.spi.Vectors.PRIME;
        }
        if (everyRank && terms != 0) {
            return new CollectiveMismatchException("close", rank, io.jcoll.exceptions.JcollException.NONE, "the "
                    + "counts of an earlier allToAllV disagreed between two ranks: a rank's sendCounts[r] must equal "
                    + "rank r's recvCounts for it, and this transport moved the data as each rank counted it (found "
                    + "when closing; JCOLL_DEBUG=check names the pair at the call)");
        }
        return null;
    }

    private static String key(int r) {
        return "close/history/" + r;
    }
}
