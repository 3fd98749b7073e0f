package io.jcoll.tcp.algorithm;

/** The step that moves no data between ranks: copying within this rank, all at once. */
public final class LocalOps {

    private LocalOps() {
    }

    /** Copies {@code count} elements now; nothing to do when both regions are the same memory. */
    public static void copy(Region src, Region dst, long count, Scratch scratch) {
        new LocalCopy(src, dst, count, scratch).finish();
    }
}
