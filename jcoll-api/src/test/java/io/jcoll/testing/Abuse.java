package io.jcoll.testing;

import io.jcoll.Buffer;
import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.InvalidArgumentException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Throws random bad arguments at a communicator, the same sequence on every
 * rank (one seed): null, closed, read-only, too-small and mistyped buffers,
 * negative, past-the-end and overflowing counts, out-of-range roots and
 * peers, a null reduce op, plus whatever bad buffers a transport adds (a
 * device buffer that was freed, one on another GPU). Each must be refused
 * with {@link InvalidArgumentException} on every rank, before any byte moves
 * and without disturbing the communicator: every tenth step is a real
 * AllReduce whose result is checked. Anything else (another exception, a
 * wrong result, a hang, a dead JVM) fails the run.
 */
public final class Abuse {

    /** A transport-specific bad buffer: what it is, and how to make one (a float32 buffer of at least 64). */
    public record BadBuffer(String what, Supplier<Buffer> make) {
    }

    private static final int N = 64;

    private Abuse() {
    }

    /**
     * @param comm   the communicator, on every rank
     * @param seed   the same on every rank
     * @param steps  bad calls to make
     * @param extras transport-specific bad buffers
     * @return how many bad calls of each kind were refused, plus "checked allReduce" for the good ones
     */
    public static Map<String, Integer> run(Communicator comm, long seed, int steps, List<BadBuffer> extras) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Map<String, Integer> tally = new TreeMap<>();
        HostBuffer good = HostBuffer.of(new float[N * Math.max(comm.size(), 2)]);
        double[] sum = new double[1];
        HostBuffer check = HostBuffer.of(sum);
        for (int step = 0; step < steps; step++) {
            if (step % 10 == 9) {
                checkedAllReduce(comm, check, sum, step);
                tally.merge("checked allReduce", 1, Integer::sum);
            }
            String kind = badCall(comm, rnd, good, extras);
            tally.merge(kind, 1, Integer::sum);
        }
        checkedAllReduce(comm, check, sum, steps);
        return tally;
    }

    /** Makes one bad call and checks that it is refused; returns its kind. */
    private static String badCall(Communicator comm, SplittableRandom rnd, HostBuffer good, List<BadBuffer> extras) {
        int size = comm.size();
        int kinds = 9 + extras.size();
        int k = rnd.nextInt(kinds);
        String kind;
        Runnable call;
        switch (k) {
            case 0 -> {
                kind = "null buffer";
                boolean nullSend = rnd.nextBoolean();
                call = randomOp(comm, rnd, nullSend ? null : good, nullSend ? good : null, N, nullSend);
            }
            case 1 -> {
                kind = "negative count";
                long count = rnd.nextBoolean() ? -1 - rnd.nextInt(1000) : Long.MIN_VALUE + rnd.nextInt(1000);
                call = randomOp(comm, rnd, good, good.slice(0, good.count()), count, false);
            }
            case 2 -> {
                kind = "count past the end";
                long count = rnd.nextBoolean() ? good.count() + 1 + rnd.nextInt(1000) : Long.MAX_VALUE - rnd.nextInt(10);
                call = () -> comm.allReduce(good, HostBuffer.of(new float[(int) good.count()]), count, ReduceOp.SUM);
            }
            case 3 -> {
                kind = "count whose size * count overflows";
                long count = Long.MAX_VALUE / size + 1 + rnd.nextInt(1000);
                call = rnd.nextBoolean() ? () -> comm.allGather(good, good, count)
                        : () -> comm.allToAll(good, HostBuffer.of(new float[(int) good.count()]), count);
            }
            case 4 -> {
                kind = "read-only output";
                HostBuffer readOnly = HostBuffer.of(ByteBuffer.allocateDirect(4 * (int) good.count())
                        .order(ByteOrder.nativeOrder()).asReadOnlyBuffer(), DataType.FLOAT32);
                call = randomOp(comm, rnd, good, readOnly, N, false);
            }
            case 5 -> {
                kind = "mismatched types";
                call = randomOp(comm, rnd, good, HostBuffer.of(new int[(int) good.count()]), N, true);
            }
            case 6 -> {
                kind = "root out of range";
                int root = switch (rnd.nextInt(4)) {
                    case 0 -> -1;
                    case 1 -> size;
                    case 2 -> Integer.MIN_VALUE;
                    default -> Integer.MAX_VALUE;
                };
                call = () -> comm.broadcast(good, good, N, root);
            }
            case 7 -> {
                kind = "peer out of range or itself";
                int peer = switch (rnd.nextInt(3)) {
                    case 0 -> -1 - rnd.nextInt(5);
                    case 1 -> size + rnd.nextInt(5);
                    default -> comm.rank();
                };
                call = rnd.nextBoolean() ? () -> comm.send(good, N, peer) : () -> comm.recv(good, N, peer);
            }
            case 8 -> {
                kind = "null reduce op";
                call = rnd.nextBoolean() ? () -> comm.allReduce(good, good, N, null)
                        : () -> comm.reduceScatter(good, HostBuffer.of(new float[N]), N, null);
            }
            default -> {
                BadBuffer bad = extras.get(k - 9);
                kind = bad.what();
                Buffer b = bad.make().get();
                call = randomOp(comm, rnd, rnd.nextBoolean() ? b : good, b, N, false);
            }
        }
        try {
            call.run();
        } catch (InvalidArgumentException refused) {
            if (refused.getMessage() == null || refused.getMessage().isBlank()) {
                throw new AssertionError(kind + ": refused without a message", refused);
            }
            return kind;
        }
        throw new AssertionError(kind + ": the call was accepted on rank " + comm.rank());
    }

    /**
     * A random collective over {@code send} and {@code recv}. When only the pair is wrong ({@code needsSend}),
     * broadcast is left out: it reads a send buffer only on its root, so the other ranks would accept it.
     */
    private static Runnable randomOp(Communicator comm, SplittableRandom rnd, Buffer send, Buffer recv, long count,
                                     boolean needsSend) {
        return switch (rnd.nextInt(needsSend ? 4 : 5)) {
            case 0 -> () -> comm.allReduce(send, recv, count, ReduceOp.SUM);
            case 1 -> () -> comm.allGather(send, recv, count);
            case 2 -> () -> comm.reduceScatter(send, recv, count, ReduceOp.MAX);
            case 3 -> () -> comm.allToAll(send, recv, count);
            default -> () -> comm.broadcast(recv, recv, count, 0);
        };
    }

    /** An AllReduce of each rank's (rank + step): the sum proves the ranks are still in step. */
    private static void checkedAllReduce(Communicator comm, HostBuffer check, double[] sum, int step) {
        double[] mine = {comm.rank() + step};
        HostBuffer in = HostBuffer.of(mine);
        comm.allReduce(in, check, 1, ReduceOp.SUM);
        double expected = 0;
        for (int r = 0; r < comm.size(); r++) {
            expected += r + step;
        }
        double got = sum[0];
        if (got != expected) {
            throw new AssertionError("after bad calls, an AllReduce gave " + got + " where " + expected + " was due");
        }
    }
}
