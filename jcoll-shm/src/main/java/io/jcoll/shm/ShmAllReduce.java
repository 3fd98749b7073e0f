package io.jcoll.shm;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.kernels.Reductions;
import io.jcoll.spi.Call;
import io.jcoll.spi.StagedAccess;

import java.nio.ByteBuffer;

/**
 * All-reduce, and reduce to one root, through the slots. Small messages in one step: every rank posts its whole
 * input and reduces all of them, in rank order (so that every rank computes the same bits). Larger ones a chunk
 * per slot in three phases: every rank posts its chunk; each reduces its own slice of the chunk, reading every
 * peer's slot directly, into its own slot; each copies every slice out. One copy in, one copy out, the reduction
 * spread over all ranks, and no kernel in between.
 */
final class ShmAllReduce {

    private ShmAllReduce() {
    }

    /**
     * @param root the rank that receives the result, or -1 for every rank
     * @param oneStepBytes messages up to this size (per rank) go in one step
     */
    static void run(Slots s, Call call, int root, int oneStepBytes) {
        long count = call.count();
        int typeSize = call.type().size();
        if (count <= oneStepBytes / typeSize && count <= s.elementsPerSlot(typeSize)) {
            oneStep(s, call, root);
            return;
        }
        long chunk = s.elementsPerSlot(typeSize);
        for (long from = 0; from < count; from += chunk) {
            chunk(s, call, root, from, (int) Math.min(chunk, count - from));
        }
    }

    private static void oneStep(Slots s, Call call, int root) {
        int bytes = (int) (call.count() * call.type().size());
        int k = s.nextSlot();
        s.copyIn((StagedAccess) call.send(), 0, bytes, s.slot(s.rank(), k), 0);
        s.publish();
        s.awaitAll();
        if (root < 0 || root == s.rank()) {
            StagedAccess out = (StagedAccess) call.recv();
            ByteBuffer dst = s.writable(out, 0, bytes);
            reduce(s, call.type(), call.reduceOp(), k, 0, bytes, (int) call.count(), dst);
            out.commit(0, dst);
        }
        s.free(k);
    }

    private static void chunk(Slots s, Call call, int root, long from, int elements) {
        int typeSize = call.type().size();
        int n = s.size();
        int me = s.rank();
        int k = s.nextSlot();
        ByteBuffer mine = s.slot(me, k);
        StagedAccess in = (StagedAccess) call.send();
        int lo = sliceStart(elements, n, me);
        int hi = sliceStart(elements, n, me + 1);
        // the peers' slices only: this rank's own slice is read from its input when it reduces it. The crew shares
        // the elements outside [lo, hi), numbered as if that slice were cut out, so that no member idles on it
        int own = hi - lo;
        s.share(elements - own, typeSize, (a, b) -> {
            copyIn(s, in, from, typeSize, a, Math.min(b, lo), mine);
            copyIn(s, in, from, typeSize, Math.max(a, lo) + own, b + own, mine);
        });
        s.publish();
        s.awaitAll();
        // into this rank's slice of its own slot: no other rank reads that slice of this slot in this phase
        s.share(hi - lo, typeSize, (a, b) -> {
            int at = (lo + a) * typeSize;
            int bytes = (b - a) * typeSize;
            ByteBuffer input = s.readable(in, from * typeSize + at, bytes);
            reduceWithOwn(s, call.type(), call.reduceOp(), k, at, b - a, input, Slots.view(mine, at, bytes));
        });
        s.publish();
        s.awaitAll();
        if (root < 0 || root == me) {
            StagedAccess out = (StagedAccess) call.recv();
            // every rank's reduced slice, each from its reducer's slot
            s.share(elements, typeSize, (a, b) -> {
                for (int j = 0; j < n; j++) {
                    int start = Math.max(a, sliceStart(elements, n, j));
                    int end = Math.min(b, sliceStart(elements, n, j + 1));
                    if (end > start) {
                        s.copyOut(s.slot(j, k), start * typeSize, (end - start) * typeSize, out,
                                (from + start) * typeSize);
                    }
                }
            });
        }
        s.free(k);
    }

    /** Elements {@code [a, b)} of the chunk at {@code from} of {@code in}, if any, into their place in {@code slot}. */
    private static void copyIn(Slots s, StagedAccess in, long from, int typeSize, int a, int b, ByteBuffer slot) {
        if (b > a) {
            s.copyIn(in, (from + a) * typeSize, (b - a) * typeSize, slot, a * typeSize);
        }
    }

    /** Element where rank {@code r}'s slice of an {@code elements}-long chunk starts. */
    static int sliceStart(int elements, int n, int r) {
        return (int) sliceStart((long) elements, n, r);
    }

    /** Element where rank {@code r}'s slice of {@code count} elements starts (SingleCopy's whole messages). */
    static long sliceStart(long count, int n, int r) {
        return count * r / n;
    }

    /**
     * {@code dst = slot[0] op slot[1] op ...} over bytes {@code [at, at + bytes)} of every rank's slot {@code k}, in
     * rank order, into memory of this rank's own; AVG divided at the end.
     */
    static void reduce(Slots s, DataType type, ReduceOp op, int k, int at, int bytes, int elements, ByteBuffer dst) {
        ByteBuffer[] inputs = new ByteBuffer[s.size()]; // its own: crew members reduce side by side
        for (int j = 0; j < inputs.length; j++) {
            inputs[j] = Slots.view(s.slot(j, k), at, bytes);
        }
        reduceInRankOrder(type, op, inputs, dst, elements);
    }

    /**
     * {@code dst = inputs[0] op inputs[1] op ...} (one per rank, in rank order) of {@code elements} elements; AVG
     * divided at the end.
     */
    static void reduceInRankOrder(DataType type, ReduceOp op, ByteBuffer[] inputs, ByteBuffer dst, int elements) {
        Reductions.combineAll(type, op, inputs, dst, elements);
        finish(type, op, dst, elements, inputs.length);
    }

    /**
     * {@code dst = own op slot[j] op ...} over bytes {@code [at, ...)} of every peer's slot {@code k}: this rank's
     * values first, then every peer's in rank order (a slice has one reducer, so every rank still receives the
     * same bits). {@code dst} is this rank's slice of its own slot.
     */
    static void reduceWithOwn(Slots s, DataType type, ReduceOp op, int k, int at, int elements, ByteBuffer own,
                              ByteBuffer dst) {
        int bytes = elements * type.size();
        ByteBuffer[] inputs = new ByteBuffer[s.size()];
        inputs[0] = own;
        for (int j = 0, i = 1; j < s.size(); j++) {
            if (j != s.rank()) {
                inputs[i++] = Slots.view(s.slot(j, k), at, bytes);
            }
        }
        Reductions.combineAll(type, op, inputs, dst, elements);
        finish(type, op, dst, elements, s.size());
    }

    private static void finish(DataType type, ReduceOp op, ByteBuffer dst, int elements, int n) {
        if (op == ReduceOp.AVG) {
            Reductions.divide(type, dst, elements, n);
        }
    }
}
