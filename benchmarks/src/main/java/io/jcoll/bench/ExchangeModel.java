package io.jcoll.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * The shared-memory transport's two-rank Broadcast exchange with no call path around it: what the lines that pass
 * between two cores cost a call, and which of the exchange's choices that cost follows. A root thread posts call
 * after call into a ring of boxes (a sequence word and four words of signature, history and data on one line),
 * and a receiver thread waits for each, reads it and, as the transport did until its receivers left three calls in
 * four unposted (jcoll-shm's {@code Boxes.QUIET_PERIOD}), posts a box of its own that the root reads back in
 * batches of half the ring, and that tells the root when a box may be written again.
 * <p>
 * Each of the choices, on the command line:
 * <ul>
 *   <li>{@code strided} or {@code packed}: successive boxes a box's whole size apart (the transport's boxes hold
 *       4 KB of data, so each call's line is on another page) or on successive lines, as Open MPI's fast boxes are,
 *       where a core's prefetchers can follow them;</li>
 *   <li>{@code fence} or {@code nofence}: a full fence at each call's end on both threads, as the lock given back at
 *       the end of a thread-safe call makes (a volatile store or a compare-and-set on x86), or none, as under
 *       {@code MPI_THREAD_SINGLE};</li>
 *   <li>{@code reply} or {@code counter}: the receiver posts a box of its own each call, which the root reads, or
 *       only a counter of the calls it is done with, every half ring (no check of its call by the root).</li>
 * </ul>
 * Prints each thread's time a call in nanoseconds, for 3 rounds of {@code CALLS} calls after a warm-up round.
 * {@code java -cp "$(./jcoll classpath)" io.jcoll.bench.ExchangeModel strided fence reply [CALLS]}
 */
public final class ExchangeModel {

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final int BOXES = 8;                 // as the transport's Layout.BOXES
    private static final int BATCH = BOXES / 2;         // as Boxes.TWO_RANK_BATCH
    private static final int LINE = 64;
    private static final int STRIDED = 4160;            // the transport's box: 48 bytes of header and 4 KB of data
    private static final int WORDS = 4;                 // signature, history and 8 bytes of data after the sequence

    private final int stride;
    private final boolean fence;
    private final boolean reply;
    private final ByteBuffer root;                      // the root's boxes
    private final ByteBuffer receiver;                  // the receiver's boxes; or, without replies, its counter
    private long check;                                 // what the receiver read, so that no read is dropped

    private ExchangeModel(int stride, boolean fence, boolean reply) {
        this.stride = stride;
        this.fence = fence;
        this.reply = reply;
        this.root = lines(BOXES * stride);
        this.receiver = lines(BOXES * stride);
    }

    /** Zeroed memory of {@code bytes}, starting on a page (no line shared with anything else). */
    private static ByteBuffer lines(int bytes) {
        return ByteBuffer.allocateDirect(bytes + 8192).alignedSlice(4096).order(ByteOrder.nativeOrder());
    }

    private int box(long call) {
        return (int) ((call - 1) & (BOXES - 1)) * stride;
    }

    /** The root's side of {@code calls} calls from {@code first}: room, post, and the batched reading of replies. */
    private void root(long first, long calls) {
        long repliedUpTo = first - 1;  // the receiver's calls the root has read back (or, without replies, been told)
        for (long c = first; c < first + calls; c++) {
            if (repliedUpTo < c - BOXES) {  // box c held call c - BOXES: the receiver must be done with it
                repliedUpTo = awaitReceiver(c - BOXES, repliedUpTo);
            } else if (reply && c - repliedUpTo > BATCH) {
                repliedUpTo = readReplies(repliedUpTo, c - 1); // as the transport settles: what is posted, no wait
            }
            int at = box(c);
            for (int w = 1; w <= WORDS; w++) {
                root.putLong(at + 8 * w, c * w);
            }
            LONGS.setRelease(root, at, c);
            if (fence) {
                VarHandle.fullFence();
            }
        }
    }

    /** Waits until the receiver is done with call {@code call}; returns how far it is known to be done. */
    private long awaitReceiver(long call, long known) {
        while (true) {
            long done = reply ? readReplies(known, call) : (long) LONGS.getAcquire(receiver, 0);
            if (done >= call) {
                return done;
            }
            known = done;
            Thread.onSpinWait();
        }
    }

    /** Reads the receiver's posted boxes after {@code from} up to {@code to}, in order, as far as they are posted. */
    private long readReplies(long from, long to) {
        long c = from + 1;
        for (; c <= to; c++) {
            int at = box(c);
            if ((long) LONGS.getAcquire(receiver, at) != c) {
                break;
            }
            for (int w = 1; w <= WORDS; w++) {
                check += receiver.getLong(at + 8 * w);
            }
        }
        return c - 1;
    }

    /** The receiver's side: wait for each of the root's boxes, read it, and reply (or count every half ring). */
    private void receiver(long first, long calls) {
        for (long c = first; c < first + calls; c++) {
            int at = box(c);
            while ((long) LONGS.getAcquire(root, at) != c) {
                Thread.onSpinWait();
            }
            long sum = 0;
            for (int w = 1; w <= WORDS; w++) {
                sum += root.getLong(at + 8 * w);
            }
            if (sum != c * (WORDS * (WORDS + 1) / 2)) {
                throw new AssertionError("call " + c + " read " + sum);
            }
            if (reply) {
                for (int w = 1; w <= WORDS; w++) {
                    receiver.putLong(at + 8 * w, c * w);
                }
                LONGS.setRelease(receiver, at, c);
            } else if (c % BATCH == 0) {
                LONGS.setRelease(receiver, 0, c);
            }
            if (fence) {
                VarHandle.fullFence();
            }
        }
    }

    /** One round: both sides of {@code calls} calls from {@code first} on two threads; their times a call in ns. */
    private double[] round(long first, long calls) throws InterruptedException {
        double[] ns = new double[2];
        Thread r = new Thread(() -> {
            long t0 = System.nanoTime();
            receiver(first, calls);
            ns[1] = (double) (System.nanoTime() - t0) / calls;
        });
        r.start();
        long t0 = System.nanoTime();
        root(first, calls);
        ns[0] = (double) (System.nanoTime() - t0) / calls;
        r.join();
        return ns;
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 3) {
            System.err.println("usage: ExchangeModel strided|packed fence|nofence reply|counter [CALLS]");
            System.exit(2);
        }
        int stride = args[0].equals("packed") ? LINE : STRIDED;
        ExchangeModel model = new ExchangeModel(stride, args[1].equals("fence"), args[2].equals("reply"));
        long calls = args.length > 3 ? Long.parseLong(args[3]) : 5_000_000;
        long next = 1;
        for (int round = 0; round <= 3; round++) {
            double[] ns = model.round(next, calls);
            next += calls;
            if (round > 0) { // round 0 compiles both loops
                System.out.printf(Locale.ROOT, "%s %s %s round %d: root %.1f ns, receiver %.1f ns a call%n",
                        args[0], args[1], args[2], round, ns[0], ns[1]);
            }
        }
        if (model.check == 42) {
            System.out.println(); // keeps the root's reads of the replies
        }
    }
}
