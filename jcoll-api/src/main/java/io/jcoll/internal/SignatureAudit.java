package io.jcoll.internal;

import io.jcoll.Buffer;
import io.jcoll.NetworkReport;
import io.jcoll.bootstrap.Store;
import io.jcoll.exceptions.CollectiveMismatchException;
import io.jcoll.exceptions.CollectiveTimeoutException;
import io.jcoll.spi.Call;
import io.jcoll.spi.Signature;
import io.jcoll.spi.Transport;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code JCOLL_DEBUG=check} for a transport that cannot compare call
 * signatures itself (NCCL: its kernels run whatever they are given). Before
 * each collective every rank publishes its {@link Signature} in the
 * rendezvous store and reads every other rank's; if they disagree, every rank
 * fails the call before anything is launched, naming who is doing what. A
 * store round trip per rank per call: a debugging aid, not for timed runs.
 *
 * <p>Keys are per step and each rank deletes its own key of the step before
 * once it has read everyone's key of this step (by then every rank has read
 * the older one), so the store stays small over a long job.
 */
final class SignatureAudit implements Transport {

    private final Transport inner;
    private final Store store;
    private final int rank;
    private final int size;
    private final Signature[] byRank;

    SignatureAudit(Transport inner, Store store, int rank, int size) {
        this.inner = inner;
        this.store = store;
        this.rank = rank;
        this.size = size;
        this.byRank = new Signature[size];
    }

    /**
     * @param settings the job's settings
     * @return whether {@code JCOLL_DEBUG} asks for the check (a comma-separated list that holds {@code check})
     */
    static boolean requested(io.jcoll.spi.Settings settings) {
        return settings.get("JCOLL_DEBUG").map(v -> java.util.Arrays.asList(v.split(",")).contains("check"))
                .orElse(false);
    }

    /** The transport doing the work, for {@link io.jcoll.Communicator#unwrap}. */
    Transport inner() {
        return inner;
    }

    @Override
    public void execute(Call call, long deadlineNanos) {
        audit(call, deadlineNanos);
        inner.execute(call, deadlineNanos);
    }

    @Override
    public Completion enqueue(Call call, long deadlineNanos) {
        audit(call, deadlineNanos);
        return inner.enqueue(call, deadlineNanos);
    }

    private void audit(Call call, long deadlineNanos) {
        if (!call.operation().isCollective()) {
            return;
        }
        long step = call.sequence();
        byRank[rank] = Signature.of(call);
        store.set(key(step, rank), encode(call));
        long[][] sendCounts = call.vectors() == null ? null : new long[size][];
        long[][] recvCounts = call.vectors() == null ? null : new long[size][];
        for (int r = 0; r < size; r++) {
            if (r == rank) {
                if (sendCounts != null) {
                    sendCounts[r] = call.vectors().sendCounts();
                    recvCounts[r] = call.vectors().recvCounts();
                }
                continue;
            }
            Duration left = Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
            Optional<byte[]> theirs = store.get(key(step, r), left);
            if (theirs.isEmpty() || theirs.get().length < Signature.BYTES) {
                throw new CollectiveTimeoutException(call.operation().label(), rank, r, "rank " + r
                        + " did not reach collective #" + step + " within JCOLL_TIMEOUT (JCOLL_DEBUG=check waited for "
                        + "its call's signature; this rank is in " + byRank[rank].describe() + ")");
            }
            ByteBuffer b = ByteBuffer.wrap(theirs.get()).order(ByteOrder.LITTLE_ENDIAN);
            byRank[r] = Signature.readFrom(b, 0);
            if (sendCounts != null && b.capacity() == Signature.BYTES + 16 * size) {
                sendCounts[r] = new long[size];
                recvCounts[r] = new long[size];
                for (int p = 0; p < size; p++) {
                    sendCounts[r][p] = b.getLong(Signature.BYTES + 8 * p);
                    recvCounts[r][p] = b.getLong(Signature.BYTES + 8 * (size + p));
                }
            }
        }
        if (step > 0) {
            store.delete(key(step - 1, rank));
        }
        String disagreement = Signature.disagreement(byRank);
        if (disagreement != null) {
            throw new CollectiveMismatchException(call.operation().label(), rank, firstOther(), disagreement
                    + "; every rank must issue the same collectives, in the same order, with the same arguments "
                    + "(found by JCOLL_DEBUG=check before the call was launched)");
        }
        if (sendCounts != null) {
            pairsAgree(call, sendCounts, recvCounts);
        }
    }

    /** This rank's signature, and an uneven all-to-all's counts both ways (so every rank can check every pair). */
    private byte[] encode(Call call) {
        int extra = call.vectors() == null ? 0 : 16 * size;
        ByteBuffer b = ByteBuffer.allocate(Signature.BYTES + extra).order(ByteOrder.LITTLE_ENDIAN);
        byRank[rank].writeTo(b, 0);
        for (int p = 0; extra > 0 && p < size; p++) {
            b.putLong(Signature.BYTES + 8 * p, call.vectors().sendCounts()[p]);
            b.putLong(Signature.BYTES + 8 * (size + p), call.vectors().recvCounts()[p]);
        }
        return b.array();
    }

    /** Every rank sees every pair's counts: all of them fail, naming the same pair, before anything is launched. */
    private void pairsAgree(Call call, long[][] sendCounts, long[][] recvCounts) {
        for (int s = 0; s < size; s++) {
            for (int r = 0; r < size; r++) {
                if (sendCounts[s][r] != recvCounts[r][s]) {
                    int peer = rank == s ? r : s;
                    throw new CollectiveMismatchException(call.operation().label(), rank, peer, "in "
                            + byRank[rank].describe() + " rank " + s + " sends rank " + r + " " + sendCounts[s][r]
                            + " elements but rank " + r + " expects " + recvCounts[r][s] + " from it; a rank's "
                            + "sendCounts[r] must equal rank r's recvCounts for it (found by JCOLL_DEBUG=check before "
                            + "the call was launched)");
                }
            }
        }
    }

    /** The lowest rank whose signature differs from this rank's. */
    private int firstOther() {
        for (int r = 0; r < size; r++) {
            if (!byRank[r].equals(byRank[rank])) {
                return r;
            }
        }
        return io.jcoll.exceptions.JcollException.NONE;
    }

    private static String key(long step, int rank) {
        return "check/" + step + "/" + rank;
    }

    @Override public String name() { return inner.name(); }
    @Override public String unsupportedReason(Buffer buffer) { return inner.unsupportedReason(buffer); }
    @Override public NetworkReport network() { return inner.network(); }
    @Override public String algorithm(io.jcoll.spi.Call call) { return inner.algorithm(call); }
    @Override public boolean enqueues() { return inner.enqueues(); }
    @Override public boolean checksSignatures() { return true; }
    @Override public boolean detectsDeadPeers() { return inner.detectsDeadPeers(); }
    @Override public void abort(Throwable cause) { inner.abort(cause); }
    @Override public void interrupt(Throwable cause) { inner.interrupt(cause); }

    @Override
    public Transport split(io.jcoll.spi.SplitRequest request) {
        Transport child = inner.split(request);
        return child == null ? null : new SignatureAudit(child, store.scoped(request.scope()), request.rank(),
                request.size());
    }
    @Override public void close() { inner.close(); }
}
