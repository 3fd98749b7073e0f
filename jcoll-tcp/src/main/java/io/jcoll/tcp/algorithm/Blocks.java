package io.jcoll.tcp.algorithm;

/**
 * Where each rank's block lies in a message: either {@code count} elements
 * each at {@code i * count} (allGather, reduceScatter, allToAll), a message of
 * {@code total} elements cut as evenly as possible, the first
 * {@code total % n} blocks one element longer (allReduce's ring), or the same
 * part {@code [from, to)} of every uniform block (one channel's share of a
 * message split over several channels).
 */
public final class Blocks {

    private final long stride;
    private final long offset;
    private final long length;
    private final long remainder;

    private Blocks(long stride, long offset, long length, long remainder) {
        this.stride = stride;
        this.offset = offset;
        this.length = length;
        this.remainder = remainder;
    }

    public static Blocks uniform(long count) {
        return new Blocks(count, 0, count, 0);
    }

    public static Blocks even(long total, int n) {
        return new Blocks(total / n, 0, total / n, total % n);
    }

    /** Elements {@code [from, to)} of each block of {@code count} elements. */
    public static Blocks part(long count, long from, long to) {
        if (from < 0 || to < from || to > count) {
            throw new IllegalArgumentException("part [" + from + ", " + to + ") of a " + count + "-element block");
        }
        return new Blocks(count, from, to - from, 0);
    }

    public long start(int i) {
        return offset + i * stride + Math.min(i, remainder);
    }

    public long length(int i) {
        return length + (i < remainder ? 1 : 0);
    }
}
