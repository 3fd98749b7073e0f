package io.jcoll.tcp.algorithm;

import io.jcoll.spi.Call;
import io.jcoll.spi.Operation;
import io.jcoll.spi.StagedAccess;
import io.jcoll.tcp.p2p.PointToPoint;
import io.jcoll.tcp.p2p.PointToPoint.Transfer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The sends and receives of a group, all in flight at once: every receive is posted first, then every send,
 * then one wait for all of them. Since each incoming message finds its receive already posted, no order of a
 * group's calls can deadlock (a pipeline stage's send to the next stage and receive from the previous one, in
 * either order, on every rank), and independent transfers overlap.
 *
 * <p>Messages are cut into segments exactly as {@link Pipeline} cuts a lone send or receive, so that a group's
 * send meets a plain receive and the other way round. Memory the transport can hand out as views (byte buffers)
 * is sent from and received into directly; arrays go through a copy the size of the message.
 */
public final class PointToPointBatch {

    private PointToPointBatch() {
    }

    /**
     * A group's sends and receives, all posted at once (so that no order of them can deadlock); its collectives
     * are the caller's to run afterwards, in the order they were recorded, as every rank does.
     *
     * @param group   a {@link Operation#GROUP} call
     * @param posting as for {@link #run}
     */
    public static void runSendsAndReceives(AlgorithmContext ctx, Call group, Consumer<Call> posting) {
        List<Call> pointToPoint = group.members().stream().filter(c -> !c.operation().isCollective()).toList();
        if (!pointToPoint.isEmpty()) {
            run(ctx, pointToPoint, posting);
        }
    }

    /**
     * @param calls   sends and receives, in the order they were recorded (that is their order per peer)
     * @param posting called before each call's transfers are posted, so the transport can label them
     */
    public static void run(AlgorithmContext ctx, List<Call> calls, Consumer<Call> posting) {
        PointToPoint p2p = ctx.p2p();
        List<Transfer> transfers = new ArrayList<>();
        List<Runnable> landings = new ArrayList<>();
        for (Call c : calls) {
            if (c.operation() == Operation.RECV) {
                posting.accept(c);
                StagedAccess out = (StagedAccess) c.recv();
                long bytes = c.count() * c.type().size();
                ByteBuffer room = out.writable(0, checkedInt(bytes), stage(out, bytes));
                forEachSegment(ctx, c, room, segment -> transfers.add(p2p.recv(c.root(), segment)));
                landings.add(() -> out.commit(0, room.clear().limit(checkedInt(bytes))));
            }
        }
        for (Call c : calls) {
            if (c.operation() == Operation.SEND) {
                posting.accept(c);
                StagedAccess in = (StagedAccess) c.send();
                long bytes = c.count() * c.type().size();
                ByteBuffer data = in.readable(0, checkedInt(bytes), stage(in, bytes));
                forEachSegment(ctx, c, data, segment -> transfers.add(p2p.send(c.root(), segment)));
            }
        }
        p2p.await(transfers.toArray(new Transfer[0]));
        landings.forEach(Runnable::run);
    }

    /** Posts each segment of {@code whole} as {@link Pipeline} would cut a run of the call's count. */
    private static void forEachSegment(AlgorithmContext ctx, Call c, ByteBuffer whole, Consumer<ByteBuffer> post) {
        int typeSize = c.type().size();
        int seg = ctx.tuning().segmentElements(typeSize, c.count());
        for (long k = 0; k * seg < c.count(); k++) {
            int from = (int) (k * seg * typeSize);
            int length = Pipeline.length(k, seg, c.count()) * typeSize;
            post.accept(whole.duplicate().clear().position(from).limit(from + length).slice());
        }
    }

    /** Room for a whole message where the buffer cannot lend a view of itself; unused (empty) where it can. */
    private static ByteBuffer stage(StagedAccess b, long bytes) {
        boolean views = b instanceof io.jcoll.HostBuffer h && h.isByteAddressable();
        return ByteBuffer.allocate(views ? 0 : checkedInt(bytes)).order(ByteOrder.nativeOrder());
    }

    private static int checkedInt(long bytes) {
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a grouped message of " + bytes + " bytes is more than the TCP "
                    + "transport stages at once; send it in parts of under 2 GB");
        }
        return (int) bytes;
    }
}
