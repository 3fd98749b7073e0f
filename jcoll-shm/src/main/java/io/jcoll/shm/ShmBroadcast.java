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
            int elements = (int) Math.min(chunk, count - from);
            long at = from * typeSize;
            int k = isRoot ? s.nextSlot() : s.nextSlotUnwritten();
            if (isRoot) {
                s.copyInShared((StagedAccess) call.send(), at, elements, typeSize, s.slot(root, k), 0);
                s.publish();
                if (!call.inPlace()) {
                    s.copyOutShared(s.slot(root, k), 0, elements, typeSize, out, at);
                }
            } else {
                s.publish();
                s.awaitPeer(root);
                s.copyOutShared(s.slot(root, k), 0, elements, typeSize, out, at);
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
            int elements = (int) Math.min(piece, count - from);
            int bytes = elements * typeSize;
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
                s.copyOutShared(s.slot(root, k), s.rank() * bytes, elements, typeSize, out, from * typeSize);
            }
            s.free(k);
        }
    }
}
