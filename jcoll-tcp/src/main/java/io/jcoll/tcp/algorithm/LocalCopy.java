package io.jcoll.tcp.algorithm;

import java.nio.ByteBuffer;

/**
 * A copy within this rank, done a piece at a time so that it can fill the time the rank would otherwise spend
 * waiting on the network: the root's copy of a broadcast's input into its output, a rank's own block of an
 * all-gather or all-to-all. Over loopback a sender waits while its peer copies the bytes out of the kernel, and
 * that wait is enough for the copy (see {@link Pipeline#exchange(AlgorithmContext, int, LocalCopy, Pipeline.Leg...)}).
 * Nothing to do when both regions are the same memory (in place). {@link #now} copies in one go where there is
 * nothing to wait on.
 */
public final class LocalCopy {

    /** Bytes per piece: short, so that the rank looks at the network again soon after each. */
    static final int PIECE_BYTES = 128 << 10;

    /** A copy of nothing, for exchanges with no local work beside them: finished from the start. */
    public static final LocalCopy NONE = new LocalCopy(null, null, 0, null);

    private final Region src;
    private final Region dst;
    private final long count;
    private final Scratch scratch;
    private long done;

    public LocalCopy(Region src, Region dst, long count, Scratch scratch) {
        this.src = src;
        this.dst = dst;
        this.count = count;
        this.scratch = scratch;
        boolean inPlace = count > 0
                && src.buffer().slice(src.element(), count).sameMemoryAs(dst.buffer().slice(dst.element(), count));
        this.done = inPlace ? count : 0;
    }

    /** Whether every element has been copied. */
    public boolean finished() {
        return done >= count;
    }

    /**
     * Copies the next piece (through the own and output stages where a buffer is not byte-addressable: a
     * pipeline's stages in flight are the send and receive ones).
     */
    public void step() {
        if (finished()) {
            return;
        }
        int size = src.buffer().type().size();
        int piece = Math.max(1, Math.min(PIECE_BYTES, scratch.stageBytes()) / size); // elements, within a stage
        int n = (int) Math.min(piece, count - done);
        ByteBuffer in = src.buffer().readable(src.byteOffset(done), n * size, scratch.ownStage());
        long at = dst.byteOffset(done);
        ByteBuffer out = dst.buffer().writable(at, n * size, scratch.dstStage());
        out.put(0, in, 0, n * size);
        dst.buffer().commit(at, out);
        done += n;
    }

    /** Copies {@code count} elements now, in one go; nothing to do when both regions are the same memory. */
    public static void now(Region src, Region dst, long count, Scratch scratch) {
        new LocalCopy(src, dst, count, scratch).finish();
    }

    /** Copies whatever is left. */
    public void finish() {
        while (!finished()) {
            step();
        }
    }
}
