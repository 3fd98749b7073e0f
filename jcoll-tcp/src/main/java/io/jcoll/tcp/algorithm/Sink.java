package io.jcoll.tcp.algorithm;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.kernels.Reductions;

import java.nio.ByteBuffer;

/**
 * What becomes of a received segment: copied into place, or reduced with this
 * rank's contribution. {@link Pipeline} asks where a segment should land, then
 * says when it has.
 */
public interface Sink {

    /** Where elements {@code [first, first + n)} of the incoming stream should land. */
    ByteBuffer target(long first, int n, ByteBuffer stage);

    /** Those elements have fully arrived in {@code landed}. */
    void arrived(long first, int n, ByteBuffer landed);

    /** Receives straight into {@code dst} (a view for byte buffers, a stage then a copy for arrays). */
    static Sink into(Region dst) {
        return new Sink() {
            @Override
            public ByteBuffer target(long first, int n, ByteBuffer stage) {
                return dst.buffer().writable(dst.byteOffset(first), n * dst.buffer().type().size(), stage);
            }

            @Override
            public void arrived(long first, int n, ByteBuffer landed) {
                dst.buffer().commit(dst.byteOffset(first), landed);
            }
        };
    }

    /**
     * Receives into the stage and copies into {@code dst} only once the segment
     * has arrived: for in-place exchanges, where {@code dst} is still being sent from.
     */
    static Sink afterArrival(Region dst, Scratch scratch) {
        return new Sink() {
            @Override
            public ByteBuffer target(long first, int n, ByteBuffer stage) {
                return stage.clear().limit(n * dst.buffer().type().size());
            }

            @Override
            public void arrived(long first, int n, ByteBuffer landed) {
                int bytes = n * dst.buffer().type().size();
                long at = dst.byteOffset(first);
                ByteBuffer out = dst.buffer().writable(at, bytes, scratch.dstStage());
                out.put(0, landed, 0, bytes);
                dst.buffer().commit(at, out);
            }
        };
    }

    /**
     * Reduces each arriving segment with this rank's {@code own} elements into {@code dst}, and divides the
     * result by {@code divisor} when it is more than 1 (AVG, where this reduction completes the sum; 1 otherwise).
     */
    static Sink reduce(Region own, Region dst, ReduceOp op, int divisor, Scratch scratch) {
        DataType type = dst.buffer().type();
        return new Sink() {
            @Override
            public ByteBuffer target(long first, int n, ByteBuffer stage) {
                return stage.clear().limit(n * type.size());
            }

            @Override
            public void arrived(long first, int n, ByteBuffer landed) {
                int bytes = n * type.size();
                ByteBuffer mine = own.buffer().readable(own.byteOffset(first), bytes, scratch.ownStage());
                long at = dst.byteOffset(first);
                ByteBuffer out = dst.buffer().writable(at, bytes, scratch.dstStage());
                Reductions.combine(type, op, landed, mine, out, n);
                if (divisor > 1) {
                    Reductions.divide(type, out, n, divisor);
                }
                dst.buffer().commit(at, out);
            }
        };
    }
}
