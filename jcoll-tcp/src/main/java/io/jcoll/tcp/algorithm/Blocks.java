package io.jcoll.tcp.algorithm;

/**
 * How a message is cut into one block per rank: either {@code count} elements
 * each at {@code i * count} (allGather, reduceScatter, allToAll), or a message
 * of {@code total} elements cut as evenly as possible, the first
 * {@code total % n} blocks one element longer (allReduce's ring).
 */
public final class Blocks {

    private final long base;
    private final long remainder;

    private Blocks(long base, long remainder) {
        this.base = base;
        this.remainder = remainder;
    }

    public static Blocks uniform(long count) {
        return new Blocks(count, 0);
    }

    public static Blocks even(long total, int n) {
        return new Blocks(total / n, total % n);
    }

    public long start(int i) {
        return i * base + Math.min(i, remainder);
    }

    public long length(int i) {
        return base + (i < remainder ? 1 : 0);
    }
}
