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
    private final ByteBuffer own = ByteBuffer.allocate(Signature.BYTES);

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
        byRank[rank].writeTo(own, 0);
        store.set(key(step, rank), own.array());
        for (int r = 0; r < size; r++) {
            if (r == rank) {
                continue;
            }
            Duration left = Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
            Optional<byte[]> theirs = store.get(key(step, r), left);
            if (theirs.isEmpty() || theirs.get().length != Signature.BYTES) {
                throw new CollectiveTimeoutException(call.operation().label(), rank, r, "rank " + r
                        + " did not reach collective #" + step + " within JCOLL_TIMEOUT (JCOLL_DEBUG=check waited for "
                        + "its call's signature; this rank is in " + byRank[rank].describe() + ")");
            }
            byRank[r] = Signature.readFrom(ByteBuffer.wrap(theirs.get()), 0);
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
    @Override public boolean enqueues() { return inner.enqueues(); }
    @Override public boolean checksSignatures() { return true; }
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
