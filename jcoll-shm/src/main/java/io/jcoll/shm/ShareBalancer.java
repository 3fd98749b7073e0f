package io.jcoll.shm;

/**
 * How much of an out-of-place broadcast's message its root writes into every receiver's output while the receivers
 * read the rest ({@link SingleCopy#broadcast}), found from the root's own recent calls. The root also copies the
 * whole message to its own output, and how long that copy takes beside a kernel copy is the host's business: on the
 * 2-vCPU VM a third of the message written took 0.61x and 0.84x Open MPI's time at 8 and 32 MB where none took 0.97x
 * and 1.23x (so there the root's own copy goes faster than a kernel copy, about three times if a third balances
 * them); on two CPUs of a Xeon the same third lost at 2 and 8 MB, 1.04x and 0.99x against 0.85x and 0.88x
 * (benchmarks/RESULTS.md, 2026-12-02). So no one share is right.
 *
 * <p>Each rank times its copies in the call: the root its own output and its share, each receiver its reads, which it
 * publishes before it says it is done. The root, once all are done, takes the slowest receiver's time beside its own:
 * for each size of message (to within a factor of two, {@link PathChooser#sizeClass}) it keeps the mean of how far the two differ, over the larger
 * ({@link #SMOOTHING}), and every {@link #EVERY} calls grows the root's share by {@link #STEP} of the message where
 * by that mean the root finished first by more than {@link #TOLERANCE}, and shrinks it where the receivers did. It
 * starts at none, what a host whose own copy is as slow as the kernel's wants, and never writes more than a rank's
 * even part. Only the root
 * decides: it publishes the bytes for each call with its input, so every rank splits the message alike. Below
 * {@link #MIN_BYTES} it writes none and learns nothing.
 */
final class ShareBalancer {

    /** The share moves by this much of the message at a time. */
    static final double STEP = 1.0 / 64;
    /** Calls of a size between moves: the mean then holds about as many calls since the last. */
    static final int EVERY = 8;
    /** The weight of each call in the mean. */
    static final double SMOOTHING = 1.0 / EVERY;
    /** How far apart, over the larger, the root's and the receivers' times may be without a move. */
    static final double TOLERANCE = 0.05;
    /**
     * The smallest message given a share. A share costs the root two system calls (it reads the receiver's grant,
     * then writes), which only a message whose kernel copy takes several times as long pays back: on the Intel VM
     * (2026-12-02, two rounds each, every broadcast read from 8 KB with the sizes alone deciding) the share found took
     * 1.50, 1.31, 1.22 and 1.15x Open MPI's time at 8-64 KB against 1.22, 1.10, 0.96 and 0.99x with none, and both
     * 1.04x at 128 KB (benchmarks/results/dev-2026-12-02-small-read).
     */
    static final long MIN_BYTES = 128 << 10;
    /** A share ends on a page, as the kernel pins them. */
    private static final long PAGE = 4096;

    private final double maxFraction;
    private final double[] fraction = new double[PathChooser.SIZES]; // by size class
    private final double[] apart = new double[PathChooser.SIZES]; // the mean of (receivers' time - root's) / larger
    private final int[] calls = new int[PathChooser.SIZES];

    /** A balancer for a root of {@code ranks} ranks: it writes at most the even part, {@code 1/ranks}. */
    ShareBalancer(int ranks) {
        this.maxFraction = 1.0 / ranks;
    }

    /** Whether messages of {@code bytes} get a share, so that their calls' times are worth taking. */
    static boolean balances(long bytes) {
        return bytes >= MIN_BYTES;
    }

    /**
     * The bytes at the start of a message of {@code bytes} that the root writes next; none below {@link #MIN_BYTES}.
     */
    long shareBytes(long bytes, int typeSize) {
        if (!balances(bytes)) {
            return 0;
        }
        return wholePages((long) (fraction[PathChooser.sizeClass(bytes)] * bytes), typeSize);
    }

    /** {@code bytes} rounded down to whole pages of whole elements of {@code typeSize}: where a share may end. */
    static long wholePages(long bytes, int typeSize) {
        long pages = bytes / PAGE * PAGE;
        return pages - pages % typeSize;
    }

    /**
     * What the root's latest call of a message of {@code bytes} took: {@code rootNanos} copying its own output and its
     * share, and {@code receiverNanos} the slowest receiver's reads.
     */
    void record(long bytes, long rootNanos, long receiverNanos) {
        long larger = Math.max(rootNanos, receiverNanos);
        if (larger <= 0 || rootNanos < 0 || receiverNanos < 0) {
            return; // a receiver's word that is not a time: the call is not counted
        }
        int size = PathChooser.sizeClass(bytes);
        double gap = (double) (receiverNanos - rootNanos) / larger; // > 0: the root finished first
        apart[size] = calls[size] == 0 ? gap : apart[size] + SMOOTHING * (gap - apart[size]);
        if (++calls[size] % EVERY == 0 && Math.abs(apart[size]) > TOLERANCE) {
            double moved = fraction[size] + Math.signum(apart[size]) * STEP;
            fraction[size] = Math.max(0, Math.min(maxFraction, moved));
        }
    }

    /** The fraction of a message of {@code bytes} the root writes now (for tests). */
    double fraction(long bytes) {
        return fraction[PathChooser.sizeClass(bytes)];
    }
}
