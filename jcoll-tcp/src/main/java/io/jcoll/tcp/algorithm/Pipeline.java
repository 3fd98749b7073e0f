package io.jcoll.tcp.algorithm;

import io.jcoll.tcp.p2p.PointToPoint;
import io.jcoll.tcp.p2p.PointToPoint.Transfer;

import java.nio.ByteBuffer;

/**
 * The one data-moving loop under the ring, pairwise and point-to-point
 * algorithms: send a run of elements to one peer while receiving a run from
 * another, segment by segment, with {@link #DEPTH} segments in flight each way, so
 * that the network moves the next ones while segment k is reduced or copied.
 *
 * <p>Independent exchanges with several peers (the legs of a pairwise all-to-all) can go through one
 * pipeline: their segments, leg after leg, share the {@link #DEPTH} slots, so the next leg starts while the
 * last segments of the one before are still moving and no leg waits for a slow partner of another to finish.
 * Both ends of every connection must list their legs with each other in the same order; that order is then
 * the order of the messages on it. Where both ends of each leg hold it at the same step, as in a pairwise
 * all-to-all, this cannot deadlock: the rank whose oldest unfinished segment comes first (by step, then
 * segment) waits on a partner that has finished everything before that segment and not the segment itself,
 * so the segment is the partner's oldest, posted, and the pair completes it.
 *
 * <p>The legs can also form a chain ({@link #chain}): each leg sends on what the leg before it received, as the
 * steps of a ring do. A segment then goes out as soon as the segments of the previous leg that it is made of
 * have arrived and been handed to their sink, not when the whole previous leg has: the segments stream through
 * the steps, and no step waits for its predecessor's last segment (a ring whose blocks are a few segments long
 * would otherwise drain its window at every step). Over a chain the window holds at most as many segments as a
 * leg has, since segment k of a leg waits on segment k of the one before.
 */
public final class Pipeline {

    /** Segments in flight each way: the network moves these while the oldest is reduced or copied. */
    public static final int DEPTH = 4;

    private Pipeline() {
    }

    /**
     * One exchange: a run of elements sent to one peer, and a run received from one (possibly another).
     *
     * @param source    where the outgoing elements start (ignored when {@code sendCount} is 0)
     * @param sendCount elements to send to {@code to}
     * @param to        destination rank (ignored when nothing is sent)
     * @param from      source rank (ignored when nothing is received)
     * @param recvCount elements to receive from {@code from}
     * @param sink      what becomes of received elements
     * @param always    whether a run of no elements still goes as one empty message, each way: where the two ends
     *                  may disagree about a run's length (an uneven all-to-all), the receiver then always gets a
     *                  header to check, even when it expects nothing
     */
    public record Leg(Region source, long sendCount, int to, int from, long recvCount, Sink sink, boolean always) {

        /** A leg whose empty runs send nothing. */
        public Leg(Region source, long sendCount, int to, int from, long recvCount, Sink sink) {
            this(source, sendCount, to, from, recvCount, sink, false);
        }
    }

    /**
     * Where part of a leg's outgoing run comes from in a {@link #graph}: elements {@code [at, at + length)} of the
     * run it feeds are elements {@code [from, from + length)} of what leg {@code leg} (an earlier one) receives, so
     * each segment of the run waits for the segments of that leg that hold them.
     */
    public record Feed(int leg, long from, long at, long length) {

        /** {@code next} sends on, element for element from the start, what leg {@code leg} receives: a chain's link. */
        static Feed chain(int leg, Leg next) {
            return new Feed(leg, 0, 0, next.sendCount());
        }
    }

    private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

    /** One exchange through the pipeline; see {@link Leg} for the arguments. */
    public static void exchange(AlgorithmContext ctx, Region source, long sendCount, int to,
                                int from, long recvCount, Sink sink, int typeSize) {
        exchange(ctx, typeSize, LocalCopy.NONE, new Leg(source, sendCount, to, from, recvCount, sink));
    }

    /**
     * Independent exchanges through one pipeline, in the order given (the same order at both ends of each), and a
     * local copy done in the waits ({@link LocalCopy#NONE} for none): before waiting on a
     * segment, the rank copies pieces of {@code meanwhile} for as long as the segment is still moving, and copies
     * what is left once the legs are done, so the copy is complete on return; it must touch none of the legs'
     * memory.
     */
    public static void exchange(AlgorithmContext ctx, int typeSize, LocalCopy meanwhile, Leg... legs) {
        run(ctx, typeSize, meanwhile, false, legs);
    }

    /**
     * Legs that form a chain: every leg after the first sends, element for element, what the leg before it
     * receives (its source is the memory that leg's sink writes), and each of its segments goes out once the
     * segments it is made of have arrived. Both ends list the legs alike, as for {@link #exchange}; the chain
     * cannot deadlock where every rank runs the same chain with its neighbours (a ring's steps), because a
     * rank's oldest unfinished segment waits only on segments that come before it on its neighbours.
     *
     * @param meanwhile a local copy done in the waits, as for {@link #exchange(AlgorithmContext, int, LocalCopy, Leg...)}
     */
    public static void chain(AlgorithmContext ctx, int typeSize, LocalCopy meanwhile, Leg... legs) {
        run(ctx, typeSize, meanwhile, true, legs);
    }

    /** Feeds that make {@code legs} a chain: each after the first sends on, from its start, what the one before received. */
    static Feed[][] chained(Leg[] legs) {
        Feed[][] feeds = new Feed[legs.length][];
        for (int i = 0; i < legs.length; i++) {
            feeds[i] = i == 0 ? new Feed[0] : new Feed[] {Feed.chain(i - 1, legs[i])};
        }
        return feeds;
    }

    /**
     * Legs whose runs are made of what earlier legs receive, in any arrangement {@code feeds} describes (by leg:
     * none for a run ready from the start): the steps of several algorithms, over different peers, streaming into
     * each other as a chain's steps do ({@link HierarchicalAllReduce}: a reduce-scatter within a host, an all-reduce
     * across hosts of what it produced, an all-gather within the host of that). Every rank must run the same
     * arrangement with its partners at each leg, as for a chain: the argument that a chain cannot deadlock holds for
     * it, since each segment still waits only on segments that come before it.
     */
    static void graph(AlgorithmContext ctx, int typeSize, Leg[] legs, Feed[][] feeds) {
        run(ctx, typeSize, LocalCopy.NONE, legs, feeds);
    }

    private static void run(AlgorithmContext ctx, int typeSize, LocalCopy meanwhile, boolean chained, Leg... legs) {
        Feed[][] feeds = chained ? chained(legs) : new Feed[legs.length][0];
        run(ctx, typeSize, meanwhile, legs, feeds);
    }

    private static void run(AlgorithmContext ctx, int typeSize, LocalCopy meanwhile, Leg[] legs, Feed[][] feeds) {
        Cut[] cuts = new Cut[legs.length];
        long units = 0; // segments of every leg, each sent and received in one slot
        for (int i = 0; i < legs.length; i++) {
            for (Feed f : feeds[i]) {
                if (f.leg() < 0 || f.leg() >= i) {
                    throw new IllegalArgumentException("leg " + i + " is fed by leg " + f.leg() + ": only earlier legs feed");
                }
            }
            cuts[i] = new Cut(legs[i], ctx.tuning(), typeSize, units, feeds[i], cuts);
            units += cuts[i].segments;
        }
        Window window = new Window(ctx.p2p(), ctx.scratch(), typeSize, new Cursor(cuts));
        long posted = 0;
        for (long done = 0; done < units; done++) {
            // everything whose slot is free and whose data is here goes out; unit `done` always can (it depends
            // only on earlier units), so the loop never waits on a segment it has not posted
            while (posted < Math.min(units, done + DEPTH) && window.nextReadyAfter(done)) {
                window.postNext((int) (posted++ % DEPTH));
            }
            int slot = (int) (done % DEPTH);
            window.fillWait(slot, meanwhile);
            window.complete(slot);
        }
        meanwhile.finish();
    }

    /**
     * One leg cut into segments: each run by its own length, as its other end cuts it. A leg whose run is made of
     * what earlier legs receive also knows those legs ({@link Feed}).
     */
    private static final class Cut {
        final Leg leg;
        final int sendSeg;
        final int recvSeg;
        final long recvSegments;
        final long segments;
        /** The pipeline's index of this leg's first segment. */
        final long firstUnit;
        /** Where this leg's run comes from; empty when it is ready from the start. */
        final Feed[] feeds;
        /** Every leg's cut, for the feeders (filled in leg order: the feeders' are set before this one's). */
        final Cut[] cuts;

        Cut(Leg leg, Tuning tuning, int typeSize, long firstUnit, Feed[] feeds, Cut[] cuts) {
            this.leg = leg;
            this.sendSeg = tuning.segmentElements(typeSize, leg.sendCount());
            this.recvSeg = tuning.segmentElements(typeSize, leg.recvCount());
            long least = leg.always() ? 1 : 0; // an empty run that must still go is one empty segment
            this.recvSegments = Math.max(least, segments(leg.recvCount(), recvSeg));
            this.segments = Math.max(Math.max(least, segments(leg.sendCount(), sendSeg)), recvSegments);
            this.firstUnit = firstUnit;
            this.feeds = feeds;
            this.cuts = cuts;
        }

        /**
         * The pipeline's index of the last unit that must have completed before segment {@code k} can go: of each
         * feeder whose elements it sends, the segment holding the last of them (units complete in order, so the
         * earlier ones are then done too; the cuts may differ where the lengths do); -1 for none.
         */
        long dependency(long k) {
            if (k * sendSeg >= leg.sendCount()) {
                return -1;
            }
            long first = k * sendSeg;
            long last = first + length(k, sendSeg, leg.sendCount()) - 1;
            long needed = -1;
            for (Feed f : feeds) {
                long lastHere = Math.min(last, f.at() + f.length() - 1);
                Cut feeder = cuts[f.leg()];
                if (Math.max(first, f.at()) > lastHere || feeder.recvSegments == 0) {
                    continue; // this segment holds none of it, or it brings nothing
                }
                long element = f.from() + lastHere - f.at(); // in the feeder's received run
                needed = Math.max(needed, feeder.firstUnit + Math.min(feeder.recvSegments - 1, element / feeder.recvSeg));
            }
            return needed;
        }
    }

    /** The next segment to post, leg after leg; legs with nothing to move are passed over. */
    private static final class Cursor {
        private final Cut[] cuts;
        private int leg;
        private long segment;

        Cursor(Cut[] cuts) {
            this.cuts = cuts;
            skipEmpty();
        }

        Cut cut() {
            return cuts[leg];
        }

        long segment() {
            return segment;
        }

        void next() {
            if (++segment >= cuts[leg].segments) {
                leg++;
                segment = 0;
                skipEmpty();
            }
        }

        private void skipEmpty() {
            while (leg < cuts.length && cuts[leg].segments == 0) {
                leg++;
            }
        }
    }

    /** The {@link #DEPTH} slots in flight: each a segment's send and receive, and where the receive landed. */
    private static final class Window {
        private final PointToPoint p2p;
        private final Scratch scratch;
        private final int typeSize;
        private final Cursor next;
        private final Transfer[] sends = new Transfer[DEPTH];
        private final Transfer[] recvs = new Transfer[DEPTH];
        private final ByteBuffer[] landed = new ByteBuffer[DEPTH];
        private final Cut[] cut = new Cut[DEPTH];
        private final long[] segment = new long[DEPTH];

        Window(PointToPoint p2p, Scratch scratch, int typeSize, Cursor next) {
            this.p2p = p2p;
            this.scratch = scratch;
            this.typeSize = typeSize;
            this.next = next;
        }

        /** Whether the cursor's segment has its data once units {@code [0, completed)} have completed. */
        boolean nextReadyAfter(long completed) {
            return next.cut().dependency(next.segment()) < completed;
        }

        /** Posts the cursor's segment in {@code slot} (whose stages are free) and moves the cursor on. */
        void postNext(int slot) {
            Cut c = next.cut();
            Leg leg = c.leg;
            long k = next.segment();
            next.next();
            cut[slot] = c;
            segment[slot] = k;
            if (k < c.recvSegments) {
                int n = length(k, c.recvSeg, leg.recvCount());
                landed[slot] = n == 0 ? EMPTY : leg.sink().target(k * c.recvSeg, n, scratch.recvStage(slot));
                recvs[slot] = p2p.recv(leg.from(), n == 0 ? EMPTY.duplicate() : landed[slot]);
            } else {
                recvs[slot] = null;
            }
            if (k * c.sendSeg < leg.sendCount()) {
                int n = length(k, c.sendSeg, leg.sendCount());
                ByteBuffer view = leg.source().buffer().readable(leg.source().byteOffset(k * c.sendSeg), n * typeSize,
                        scratch.sendStage(slot));
                sends[slot] = p2p.send(leg.to(), view);
            } else if (k == 0 && leg.always()) {
                sends[slot] = p2p.send(leg.to(), EMPTY.duplicate());
            } else {
                sends[slot] = null;
            }
        }

        /** Copies pieces of {@code meanwhile} while {@code slot}'s segment is still on its way. */
        void fillWait(int slot, LocalCopy meanwhile) {
            while (!meanwhile.finished() && !p2p.test(sends[slot], recvs[slot])) {
                meanwhile.step();
            }
        }

        /** Waits for {@code slot}'s segment to go and come, and hands what came to its leg's sink. */
        void complete(int slot) {
            p2p.await(sends[slot], recvs[slot]);
            Cut c = cut[slot];
            long k = segment[slot];
            int n = k < c.recvSegments ? length(k, c.recvSeg, c.leg.recvCount()) : 0;
            if (n > 0) {
                c.leg.sink().arrived(k * c.recvSeg, n, landed[slot]);
            }
        }
    }

    static long segments(long count, int seg) {
        return (count + seg - 1) / seg;
    }

    static int length(long k, int seg, long count) {
        return (int) Math.min(seg, count - k * seg);
    }
}
