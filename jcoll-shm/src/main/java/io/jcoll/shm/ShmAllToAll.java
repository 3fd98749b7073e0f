package io.jcoll.shm;

import io.jcoll.spi.Call;
import io.jcoll.spi.StagedAccess;

import java.nio.ByteBuffer;

/**
 * All-to-all through the slots: per chunk, every rank posts the same range of its block for each peer side by
 * side in its slot, and each rank copies its own piece out of every slot. One phase per chunk. In place works:
 * a chunk's input ranges are all posted before any output range of that chunk is written. A rank's block for
 * itself goes to its place before the rank waits for its peers (their posting and its copy overlap): straight from
 * input to output where both give views, never through the slot, which only this rank would read; in place it is
 * neither posted nor copied, being where it belongs. On 2 ranks out of place that is three copies of a block's
 * bytes where there were four, in place two.
 */
final class ShmAllToAll {

    private ShmAllToAll() {
    }

    static void run(Slots s, Call call) {
        long count = call.count();
        int typeSize = call.type().size();
        int n = s.size();
        long piece = s.elementsPerPiece(typeSize);
        StagedAccess in = (StagedAccess) call.send();
        StagedAccess out = (StagedAccess) call.recv();
        for (long from = 0; from < count; from += piece) {
            int elements = (int) Math.min(piece, count - from);
            int bytes = elements * typeSize;
            long first = from; // this chunk's first element, for the members' ranges
            int k = s.nextSlot();
            int me = s.rank();
            ByteBuffer mine = s.slot(me, k);
            boolean across = !call.inPlace() && s.viewsOnly(); // own block straight from input to output
            s.copyBlocksIn(in, count, from, bytes, typeSize, mine, call.inPlace() || across ? me : -1);
            s.publish();
            long own = (me * count + first) * typeSize;
            if (across) {
                s.copyAcrossShared(in, own, elements, typeSize, out, own);
            } else if (!call.inPlace()) {
                s.copyOutShared(mine, me * bytes, elements, typeSize, out, own);
            }
            s.awaitAll();
            s.share(elements, typeSize, (lo, hi) -> {
                for (int j = 0; j < n; j++) {
                    if (j != me) {
                        s.copyOut(s.slot(j, k), me * bytes + lo * typeSize, (hi - lo) * typeSize, out,
                                (j * count + first + lo) * typeSize);
                    }
                }
            });
            s.free(k);
        }
    }
}
