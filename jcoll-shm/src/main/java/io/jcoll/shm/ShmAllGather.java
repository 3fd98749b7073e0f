package io.jcoll.shm;

import io.jcoll.spi.Call;
import io.jcoll.spi.StagedAccess;

/**
 * All-gather, and gather to one root, through the slots: per chunk ({@link Slots#elementsPerGatherChunk}), every
 * rank posts its contribution's next range, and each rank (or the root) copies every rank's range into its place.
 * One phase per chunk. A rank's own range goes to its place before the rank waits for its peers' (their posting
 * and its copy overlap), and not at all in place, where it is there already: on 2 ranks that is a third of the
 * copies.
 */
final class ShmAllGather {

    private ShmAllGather() {
    }

    /** @param root the rank that receives the result, or -1 for every rank */
    static void run(Slots s, Call call, int root) {
        long count = call.count();
        int typeSize = call.type().size();
        long chunk = s.elementsPerGatherChunk(typeSize);
        StagedAccess in = (StagedAccess) call.send();
        StagedAccess out = (StagedAccess) call.recv();
        for (long from = 0; from < count; from += chunk) {
            int elements = (int) Math.min(chunk, count - from);
            long at = from * typeSize;
            long first = from; // this chunk's first element, for the members' ranges
            int k = s.nextSlot();
            int me = s.rank();
            s.copyInShared(in, at, elements, typeSize, s.slot(me, k), 0);
            s.publish();
            boolean gathers = root < 0 || root == me;
            if (gathers && !call.inPlace()) {
                s.copyOutShared(s.slot(me, k), 0, elements, typeSize, out, (me * count + first) * typeSize);
            }
            s.awaitAll();
            if (gathers) {
                s.share(elements, typeSize, (lo, hi) -> {
                    for (int j = 0; j < s.size(); j++) {
                        if (j != me) {
                            s.copyOut(s.slot(j, k), lo * typeSize, (hi - lo) * typeSize, out,
                                    (j * count + first + lo) * typeSize);
                        }
                    }
                });
            }
            s.free(k);
        }
    }
}
