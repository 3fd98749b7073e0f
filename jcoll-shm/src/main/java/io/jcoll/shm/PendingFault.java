package io.jcoll.shm;

/**
 * Raising, at a moment of jcoll's choosing, the fault that a touch of a page cut off from the segment leaves
 * pending. The JVM turns such a SIGBUS into an InternalError thrown asynchronously: JDK 17 throws it only where
 * the thread comes back into Java code from the VM's runtime (never on a return from a native method), later JDKs
 * at the thread's next safepoint poll, usually inside the call that touched the page. Left pending on JDK 17, it
 * is thrown wherever the thread next passes through the runtime: in the caller's own code, or inside the JDK's
 * bookkeeping of a file channel operation, which it leaves unbalanced so that closing the channel waits forever.
 */
final class PendingFault {

    private static final boolean WAITS_FOR_RUNTIME = Runtime.version().feature() < 21;
    private static volatile int tripSize = 1; // volatile: never a constant the JIT could expand inline
    @SuppressWarnings("unused") // written so that the allocation cannot be optimised away
    private static byte[][] trip;

    /** Larger than a thread-local allocation buffer and than half a G1 region of heaps up to 8 GB: a runtime call. */
    private static final int DRAIN_BYTES = 2 << 20 | 64;
    @SuppressWarnings("unused") // written so that the allocation cannot be optimised away
    private static volatile byte[] drain;

    private PendingFault() {
    }

    /**
     * Throws a fault pending on JDK 17 here: a two-dimensional array whose sizes the JIT cannot know is made by the
     * runtime in every tier (a few hundred nanoseconds). From JDK 21 nothing is pending by now, and this costs
     * nothing.
     */
    static void raise() {
        if (WAITS_FOR_RUNTIME) {
            trip = new byte[tripSize][tripSize];
        }
    }

    /** {@link #raise}, the fault caught: whether one was pending. */
    static boolean raised() {
        try {
            raise();
            return false;
        } catch (InternalError e) {
            return true;
        }
    }

    /**
     * Lets a fault still pending be raised now, and dropped, rather than replace the clear exception being thrown:
     * an allocation too large for any thread-local buffer returns from the runtime on every JDK, and its loop and
     * the yield pass safepoint polls on later ones.
     */
    static void drop() {
        try {
            drain = new byte[DRAIN_BYTES];
            drain = null;
            Thread.yield();
        } catch (InternalError e) {
            // the damage the exception being thrown already names
        }
    }
}
