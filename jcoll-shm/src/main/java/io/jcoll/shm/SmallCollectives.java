package io.jcoll.shm;

import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.StagedAccess;

import java.nio.ByteBuffer;

/**
 * Every collective of a few kilobytes in one exchange of {@link Boxes}: each rank that has an input posts the whole
 * of it, every rank that has an output waits for the boxes it needs, and each computes its own output from them (a
 * reduction in rank order, so that every rank computes the same bits; copies of the blocks meant for it). A rank
 * with no output (a broadcast's root, a reduce's other ranks) returns once it has posted, and a broadcast's or
 * scatter's receiver once it has the root's box; each compares its call with the peers' it did not wait for later,
 * within {@link Layout#BOXES} calls ({@link Boxes}). Calls with nothing to move,
 * other than Barrier, keep the slots' path, where they wait for no one.
 */
final class SmallCollectives {

    private SmallCollectives() {
    }

    /**
     * Whether {@code call} goes through boxes of {@code limit} bytes: decided from what every rank that agrees about
     * the call agrees about (the most any rank posts), so that they all take the same path.
     */
    static boolean fits(Call call, int size, int limit) {
        long bytes = switch (call.operation()) {
            case BARRIER -> 0;
            case ALL_REDUCE, REDUCE, ALL_GATHER, GATHER, SPLIT, BROADCAST -> call.count() > 0 ? call.bytes() : -1;
            case REDUCE_SCATTER, ALL_TO_ALL, SCATTER -> call.count() > 0 ? call.bytes() * size : -1;
            default -> -1;
        };
        return bytes >= 0 && bytes <= limit;
    }

    static void run(Boxes boxes, Slots s, Call call, long history) {
        int me = s.rank();
        int n = s.size();
        int root = call.root();
        boolean isRoot = me == root;
        if (call.operation() == Operation.BARRIER) {
            boxes.exchange(s, call, history, null, 0, 0, Boxes.EVERY, Boxes.EVERY);
            return;
        }
        int block = (int) call.bytes(); // a rank's contribution, or each of its blocks
        StagedAccess out = (StagedAccess) call.recv();
        switch (call.operation()) {
            case ALL_REDUCE, REDUCE -> {
                int box = boxes.exchange(s, call, history, (StagedAccess) call.send(), 0, block,
                        readNow(root, isRoot), readBy(root, isRoot));
                if (root < 0 || isRoot) {
                    reduce(boxes, s, call, box, 0, block, out);
                }
            }
            case REDUCE_SCATTER -> {
                int box = boxes.exchange(s, call, history, (StagedAccess) call.send(), 0, block * n,
                        Boxes.EVERY, Boxes.EVERY);
                reduce(boxes, s, call, box, me * block, block, out);
            }
            case ALL_GATHER, GATHER, SPLIT -> {
                int box = boxes.exchange(s, call, history, (StagedAccess) call.send(), 0, block,
                        readNow(root, isRoot), readBy(root, isRoot));
                if (root < 0 || isRoot) {
                    copyBlocksOut(boxes, s, box, 0, block, out);
                }
            }
            case ALL_TO_ALL -> {
                int box = boxes.exchange(s, call, history, (StagedAccess) call.send(), 0, block * n,
                        Boxes.EVERY, Boxes.EVERY);
                copyBlocksOut(boxes, s, box, me * block, block, out);
            }
            case BROADCAST -> {
                int box = boxes.exchange(s, call, history, isRoot ? (StagedAccess) call.send() : null, 0, block,
                        isRoot ? Boxes.NONE : root, isRoot ? Boxes.EVERY : Boxes.NONE);
                if (!(isRoot && call.inPlace())) {
                    copyOut(boxes, s, root, box, 0, block, out);
                }
            }
            case SCATTER -> {
                int box = boxes.exchange(s, call, history, isRoot ? (StagedAccess) call.send() : null, 0,
                        block * n, isRoot ? Boxes.NONE : root, isRoot ? Boxes.EVERY : Boxes.NONE);
                if (!(isRoot && call.inPlace())) {
                    copyOut(boxes, s, root, box, me * block, block, out);
                }
            }
            default -> throw new IllegalArgumentException(call.operation() + " does not go through boxes");
        }
    }

    /**
     * Whose boxes a rank of an all-reduce or all-gather ({@code root} -1), or of a reduce or gather to {@code root},
     * reads in the call: every one, but for the rooted calls' other ranks, which need nothing.
     */
    private static int readNow(int root, boolean isRoot) {
        return root < 0 || isRoot ? Boxes.EVERY : Boxes.NONE;
    }

    /** Who reads such a rank's box in the call: every rank, or, for the rooted calls, the root, which reads them all. */
    private static int readBy(int root, boolean isRoot) {
        return root < 0 ? Boxes.EVERY : isRoot ? Boxes.NONE : root;
    }

    /** {@code out} = every rank's {@code bytes} from {@code at} of its box, reduced in rank order. */
    private static void reduce(Boxes boxes, Slots s, Call call, int box, int at, int bytes, StagedAccess out) {
        ByteBuffer dst = boxes.views.writable(s, out, 0, bytes);
        ByteBuffer[] inputs = boxes.reduceInputs;
        for (int j = 0; j < inputs.length; j++) {
            inputs[j] = boxes.data(j, box, at, bytes);
        }
        ShmAllReduce.reduceInRankOrder(call.type(), call.reduceOp(), inputs, dst, (int) call.count());
        out.commit(0, dst);
    }

    /** {@code out} = {@code owner}'s {@code bytes} from {@code at} of its box. */
    private static void copyOut(Boxes boxes, Slots s, int owner, int box, int at, int bytes, StagedAccess out) {
        ByteBuffer dst = boxes.views.writable(s, out, 0, bytes);
        Boxes.copy(dst, 0, boxes.data(owner, box, at, bytes), 0, bytes);
        out.commit(0, dst);
    }

    /**
     * Block {@code j} of {@code out} = rank {@code j}'s {@code block} bytes from {@code at} of its box, for every
     * rank: written through one view of the whole output (kept from call to call), not a view per block; block by
     * block through the stage where the output has no views (the stage holds one slot, the output n blocks).
     */
    private static void copyBlocksOut(Boxes boxes, Slots s, int box, int at, int block, StagedAccess out) {
        int n = s.size();
        if (!Slots.givesViews(out)) {
            for (int j = 0; j < n; j++) {
                s.copyOut(boxes.data(j, box, at, block), 0, block, out, (long) j * block);
            }
            return;
        }
        ByteBuffer dst = boxes.views.writable(s, out, 0, block * n);
        for (int j = 0; j < n; j++) {
            Boxes.copy(dst, j * block, boxes.data(j, box, at, block), 0, block);
        }
        out.commit(0, dst);
    }
}
