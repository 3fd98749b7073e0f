package io.jcoll.tcp.algorithm;

import io.jcoll.DataType;
import io.jcoll.kernels.Reductions;

import java.nio.ByteBuffer;

/** The steps that move no data between ranks: copying within this rank, and AVG's final division. */
public final class LocalOps {

    private LocalOps() {
    }

    /** Copies {@code count} elements now; nothing to do when both regions are the same memory. */
    public static void copy(Region src, Region dst, long count, Scratch scratch) {
        new LocalCopy(src, dst, count, scratch).finish();
    }

    /** Divides {@code count} elements in place by {@code n} (AVG's last step). */
    public static void divide(Region region, long count, int n, Scratch scratch) {
        DataType type = region.buffer().type();
        int seg = Math.max(1, scratch.ownStage().capacity() / type.size());
        for (long done = 0; done < count; done += seg) {
            int m = (int) Math.min(seg, count - done);
            long at = region.byteOffset(done);
            ByteBuffer v = region.buffer().readable(at, m * type.size(), scratch.ownStage());
            Reductions.divide(type, v, m, n);
            region.buffer().commit(at, v);
        }
    }
}
