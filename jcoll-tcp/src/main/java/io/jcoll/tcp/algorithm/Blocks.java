package io.jcoll.tcp.algorithm;

/**
 * Where each rank's block lies in a message, in elements: {@code count} elements each at {@code i * count}
 * (allGather, reduceScatter, allToAll), a message of {@code total} elements cut as evenly as possible, the first
 * {@code total % n} blocks one element longer (allReduce's ring), blocks of any length anywhere (an uneven
 * allToAll), the same share of every block of another layout (one channel's share of a message split over
 * several channels), or another layout's blocks in another order (a ring that visits the ranks in host order).
 */
public interface Blocks {

    long start(int i);

    long length(int i);

    static Blocks uniform(long count) {
        return new Regular(count, 0, count, 0);
    }

    static Blocks even(long total, int n) {
        return new Regular(total / n, 0, total / n, total % n);
    }

    /** Elements {@code [from, to)} of each block of {@code count} elements. */
    static Blocks part(long count, long from, long to) {
        if (from < 0 || to < from || to > count) {
            throw new IllegalArgumentException("part [" + from + ", " + to + ") of a " + count + "-element block");
        }
        return new Regular(count, from, to - from, 0);
    }

    /** Block {@code i} is {@code lengths[i]} elements at {@code starts[i]}. */
    static Blocks explicit(long[] lengths, long[] starts) {
        return new Blocks() {
            @Override public long start(int i) { return starts[i]; }
            @Override public long length(int i) { return lengths[i]; }
        };
    }

    /**
     * Share {@code part} of {@code parts} of every block of {@code whole}: elements
     * {@code [length * part / parts, length * (part + 1) / parts)} of each, which both ends of a pair compute
     * alike from the block's length. The shares of one block cover it exactly once.
     */
    static Blocks share(Blocks whole, int part, int parts) {
        return share(whole, part, i -> parts);
    }

    /**
     * As {@link #share(Blocks, int, int)}, each block cut into its own number of shares ({@code partsOf}, from
     * what both ends of its exchange know); a block has no share {@code part} at or past its number: empty.
     */
    static Blocks share(Blocks whole, int part, java.util.function.IntUnaryOperator partsOf) {
        return new Blocks() {
            @Override public long start(int i) {
                int parts = partsOf.applyAsInt(i);
                return whole.start(i) + (part < parts ? whole.length(i) * part / parts : 0);
            }

            @Override public long length(int i) {
                int parts = partsOf.applyAsInt(i);
                long n = whole.length(i);
                return part < parts ? n * (part + 1) / parts - n * part / parts : 0;
            }
        };
    }

    /** Block {@code i} is block {@code order[i]} of {@code whole}: the blocks of ranks renumbered in that order. */
    static Blocks permuted(Blocks whole, int[] order) {
        int[] of = order.clone();
        return new Blocks() {
            @Override public long start(int i) { return whole.start(of[i]); }
            @Override public long length(int i) { return whole.length(of[i]); }
        };
    }

    /** Equal strides, optionally the first {@code remainder} blocks one element longer. */
    record Regular(long stride, long offset, long length, long remainder) implements Blocks {
        @Override
        public long start(int i) {
            return offset + i * stride + Math.min(i, remainder);
        }

        @Override
        public long length(int i) {
            return length + (i < remainder ? 1 : 0);
        }
    }
}
