package io.jcoll.shm;

import io.jcoll.spi.Call;
import io.jcoll.spi.StagedAccess;

import java.nio.ByteBuffer;

/**
 * Reduce-scatter through the slots: per chunk, every rank posts the same range of each of its {@code n} input
 * blocks side by side in its slot, and each rank reduces its own block's pieces from every slot straight into
 * its output. One phase of synchronisation per chunk.
 */
final class ShmReduceScatter {

    private ShmReduceScatter() {
    }

    static void run(Slots s, Call call) {
        long count = call.count();
        int typeSize = call.type().size();
        long piece = s.elementsPerPiece(typeSize);
        StagedAccess in = (StagedAccess) call.send();
        StagedAccess out = (StagedAccess) call.recv();
        for (long from = 0; from < count; from += piece) {
            int elements = (int) Math.min(piece, count - from);
            int bytes = elements * typeSize;
            int k = s.nextSlot();
            ByteBuffer mine = s.slot(s.rank(), k);
            s.copyBlocksIn(in, count, from, bytes, typeSize, mine);
            s.publish();
            s.awaitAll();
            ByteBuffer dst = s.writable(out, from * typeSize, bytes);
            s.share(elements, typeSize, (lo, hi) -> ShmAllReduce.reduce(s, call.type(), call.reduceOp(), k,
                    s.rank() * bytes + lo * typeSize, (hi - lo) * typeSize, hi - lo,
                    Slots.view(dst, lo * typeSize, (hi - lo) * typeSize)));
            out.commit(from * typeSize, dst);
            s.free(k);
        }
    }
}
