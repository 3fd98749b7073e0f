package io.jcoll.shm;

import io.jcoll.spi.Call;
import io.jcoll.spi.StagedAccess;

/**
 * Broadcast, and scatter, through the root's slots: per chunk, the root posts and every other rank copies what
 * is meant for it. Receivers wait for the root only; the root waits only when it comes back to a slot whose
 * last chunk some receiver has not read yet.
 */
final class ShmBroadcast {

    private ShmBroadcast() {
    }

    static void broadcast(Slots s, Call call) {
        int root = call.root();
        boolean isRoot = s.rank() == root;
        long count = call.count();
        int typeSize = call.type().size();
        long chunk = s.elementsPerSlot(typeSize);
        StagedAccess out = (StagedAccess) call.recv();
        for (long from = 0; from < count; from += chunk) {
            int bytes = (int) Math.min(chunk, count - from) * typeSize;
            long at = from * typeSize;
            int k = isRoot ? s.nextSlot() : s.nextSlotUnwritten();
            if (isRoot) {
                s.copyIn((StagedAccess) call.send(), at, bytes, s.slot(root, k), 0);
                s.publish();
                if (!call.inPlace()) {
                    s.copyOut(s.slot(root, k), 0, bytes, out, at);
                }
            } else {
                s.publish();
                s.awaitPeer(root);
                s.copyOut(s.slot(root, k), 0, bytes, out, at);
            }
            s.free(k);
        }
    }

    /** The root's input holds a block per rank; each rank receives its own. */
    static void scatter(Slots s, Call call) {
        int root = call.root();
        boolean isRoot = s.rank() == root;
        long count = call.count();
        int typeSize = call.type().size();
        long piece = s.elementsPerPiece(typeSize);
        StagedAccess out = (StagedAccess) call.recv();
        for (long from = 0; from < count; from += piece) {
            int bytes = (int) Math.min(piece, count - from) * typeSize;
            int k = isRoot ? s.nextSlot() : s.nextSlotUnwritten();
            if (isRoot) {
                StagedAccess in = (StagedAccess) call.send();
                s.copyBlocksIn(in, count, from, bytes, typeSize, s.slot(root, k));
                s.publish();
            } else {
                s.publish();
                s.awaitPeer(root);
            }
            if (!(isRoot && call.inPlace())) {
                s.copyOut(s.slot(root, k), s.rank() * bytes, bytes, out, from * typeSize);
            }
            s.free(k);
        }
    }
}
