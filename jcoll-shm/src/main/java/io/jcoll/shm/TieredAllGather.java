package io.jcoll.shm;

import io.jcoll.HostBuffer;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;

import java.util.concurrent.Future;

/**
 * AllGather in two tiers: across the hosts, an all-gather among the ranks that stand where this one stands on
 * every host (each then holds {@code h} blocks), then within the host an all-gather of those, which leaves every
 * rank every block. Each host's link carries {@code (h-1)/h} of the message instead of a ring's {@code (n-1)/n}.
 *
 * <p>The host's all-gather delivers the blocks in the tiers' order, not in rank order ({@link Tiers#unpack} puts
 * them in place), so the message goes in pieces (the same range of every block) through scratch, pipelined: while
 * the links gather piece {@code p + 1} (on the across thread), the calling thread all-gathers piece {@code p}
 * within the host and unpacks it. Scratch: one packed piece and two pieces' gathered blocks.
 */
final class TieredAllGather {

    private TieredAllGather() {
    }

    static void run(Tiers tiers, Call call, long deadlineNanos) {
        long blockCount = call.count();
        Tiers.Pieces pieces = tiers.pieces(call);
        Future<?> arriving = null;
        try {
            arriving = gatherAcross(tiers, call, pieces, 0, 0, deadlineNanos);
            int slot = 0;
            for (long from = 0; from < blockCount; from += pieces.count, slot ^= 1) {
                long count = Math.min(pieces.count, blockCount - from);
                Tiers.finish(arriving);
                arriving = null;
                if (from + count < blockCount) { // into the other share, which the last host step has read
                    arriving = gatherAcross(tiers, call, pieces, from + count, slot ^ 1, deadlineNanos);
                }
                tiers.onHost(Operation.ALL_GATHER, pieces.share(slot, count), pieces.packed(count),
                        tiers.hosts * count, call.type(), null, false, deadlineNanos);
                tiers.unpack(pieces.packed, call.recv(), blockCount, from, count);
            }
        } catch (RuntimeException | Error e) {
            tiers.abandon(e, arriving);
            throw e;
        }
    }

    /** Gathers the piece of every host's block that starts at {@code from} into share {@code slot}, on the across thread. */
    private static Future<?> gatherAcross(Tiers tiers, Call call, Tiers.Pieces pieces, long from, int slot,
                                          long deadlineNanos) {
        long count = Math.min(pieces.count, call.count() - from);
        HostBuffer gathered = pieces.share(slot, count);
        return tiers.later(() -> tiers.acrossHosts(Operation.ALL_GATHER, call.send().slice(from, count), gathered,
                count, call.type(), null, false, deadlineNanos));
    }
}
