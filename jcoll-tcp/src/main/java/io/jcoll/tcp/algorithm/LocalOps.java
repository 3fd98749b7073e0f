package io.jcoll.tcp.algorithm;

import io.jcoll.DataType;
import io.jcoll.kernels.Reductions;

import java.nio.ByteBuffer;

/** The steps that move no data between ranks: copying within this rank, and AVG's final division. */
public final class LocalOps {

    private LocalOps() {
    }

    /** Copies {@code count} elements; nothing to do when both regions are the same memory. */
    public static void copy(Region src, Region dst, long count, Scratch scratch) {
        if (count == 0 || src.buffer().slice(src.element(), count).sameMemoryAs(dst.buffer().slice(dst.element(), count))) {
            return;
        }
        int size = src.buffer().type().size();
        int seg = Math.max(1, scratch.sendStage(0).capacity() / size);
        for (long done = 0; done < count; done += seg) {
            int n = (int) Math.min(seg, count - done);
            ByteBuffer in = src.buffer().readable(src.byteOffset(done), n * size, scratch.sendStage(0));
            long at = dst.byteOffset(done);
            ByteBuffer out = dst.buffer().writable(at, n * size, scratch.dstStage());
            out.put(0, in, 0, n * size);
            dst.buffer().commit(at, out);
        }
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
