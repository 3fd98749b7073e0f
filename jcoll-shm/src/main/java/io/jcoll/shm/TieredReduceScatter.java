package io.jcoll.shm;

import io.jcoll.Buffer;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;

import java.util.concurrent.Future;

/**
 * ReduceScatter in two tiers: within the host, a reduce-scatter of the blocks of every rank that stands where this
 * one stands on some host (each of the host's {@code k} ranks then holds its host's sum of {@code h} blocks, one
 * for each host), then across the hosts a reduce-scatter of those {@code h} blocks, which leaves each rank its own.
 * Each host's link carries {@code (h-1)/h} of the message instead of a ring's {@code (n-1)/n}: 1.5x less at two
 * hosts of two ranks, 1.75x at two of four.
 *
 * <p>The host's reduce-scatter needs each rank's blocks in the tiers' order ({@link Tiers#pack}), not in rank
 * order, so the message goes in pieces (the same range of every block) through a packed copy in scratch, and is
 * pipelined: while the links reduce-scatter piece {@code p} (on the across thread), the calling thread packs and
 * reduce-scatters piece {@code p + 1} within the host. Scratch: one packed piece and two pieces' host results.
 */
final class TieredReduceScatter {

    private TieredReduceScatter() {
    }

    static void run(Tiers tiers, Call call, long deadlineNanos) {
        DataType type = call.type();
        long blockCount = call.count();
        Tiers.Pieces pieces = tiers.pieces(call);
        Future<?>[] onLinks = new Future<?>[2]; // by the share each one reads
        try {
            int slot = 0;
            for (long from = 0; from < blockCount; from += pieces.count, slot ^= 1) {
                long count = Math.min(pieces.count, blockCount - from);
                if (onLinks[slot] != null) { // this share's last piece is still on the links
                    Tiers.finish(onLinks[slot]);
                    onLinks[slot] = null;
                }
                tiers.pack(call.send(), blockCount, from, count, pieces.packed);
                HostBuffer hostSums = pieces.share(slot, count);
                tiers.onHost(Operation.REDUCE_SCATTER, pieces.packed(count), hostSums, tiers.hosts * count, type,
                        call.reduceOp(), false, deadlineNanos);
                Buffer mine = call.recv().slice(from, count);
                onLinks[slot] = tiers.later(() -> tiers.acrossHosts(Operation.REDUCE_SCATTER, hostSums, mine, count,
                        type, call.reduceOp(), false, deadlineNanos));
            }
            for (int s = 0; s < 2; s++) { // the across thread runs them in the order given: either wait will do
                if (onLinks[s] != null) {
                    Tiers.finish(onLinks[s]);
                    onLinks[s] = null;
                }
            }
        } catch (RuntimeException | Error e) {
            tiers.abandon(e, onLinks);
            throw e;
        }
    }
}
