package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.SharedMemory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Every collective single copy takes, on buffers from {@link SharedMemory} (or ordinary direct ones), each result
 * checked element by element against a reference computed here in double precision from every rank's inputs. The
 * inputs are whole numbers of at most a thousand, fresh for each seed, so that float32 sums in any order are exact
 * and the reference's answer is the only right one. Run by every rank alike: thread ranks of a test and the process
 * rank {@link SharedMemoryRank}.
 */
final class SharedCalls {

    private SharedCalls() {
    }

    /** Each collective at each of {@code counts} (elements a rank's block), inputs from {@code seed}. */
    static void run(Communicator comm, long seed, int[] counts, boolean shared) {
        int n = comm.size();
        for (int count : counts) {
            allToAll(comm, seed, count, shared);
            allGather(comm, seed, count, shared);
            for (int root = 0; root < n; root++) {
                broadcast(comm, seed, count, root, shared, false);
                broadcast(comm, seed, count, root, shared, true);
            }
            allReduce(comm, seed, count, shared, false);
            allReduce(comm, seed, count, shared, true);
            reduceScatter(comm, seed, count, shared, false);
            reduceScatter(comm, seed, count, shared, true);
        }
    }

    /** A rank's {@code i}th input of call kind {@code kind}: a whole number in [-1000, 1000]. */
    static float value(long seed, int rank, int kind, long i) {
        long z = seed + 0x9E3779B97F4A7C15L * (i + 1) + 0xBF58476D1CE4E5B9L * (rank + 1) + 0x94D049BB133111EBL * kind;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return (float) Math.floorMod(z ^ (z >>> 31), 2001) - 1000;
    }

    static ByteBuffer floats(long count, boolean shared) {
        int bytes = Math.toIntExact(count * 4);
        return shared ? SharedMemory.allocate(bytes)
                : ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }

    private static void allToAll(Communicator comm, long seed, int count, boolean shared) {
        int n = comm.size();
        int me = comm.rank();
        ByteBuffer in = floats((long) count * n, shared);
        for (int i = 0; i < count * n; i++) {
            in.putFloat(i * 4, value(seed, me, 1, i));
        }
        ByteBuffer out = floats((long) count * n, shared);
        comm.allToAll(HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(out, DataType.FLOAT32), count);
        for (int peer = 0; peer < n; peer++) {
            for (int i = 0; i < count; i++) {
                check(value(seed, peer, 1, (long) me * count + i), out.getFloat((peer * count + i) * 4),
                        "all-to-all block from rank " + peer, count, i);
            }
        }
    }

    private static void allGather(Communicator comm, long seed, int count, boolean shared) {
        int n = comm.size();
        ByteBuffer in = floats(count, shared);
        for (int i = 0; i < count; i++) {
            in.putFloat(i * 4, value(seed, comm.rank(), 2, i));
        }
        ByteBuffer out = floats((long) count * n, shared);
        comm.allGather(HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(out, DataType.FLOAT32), count);
        for (int peer = 0; peer < n; peer++) {
            for (int i = 0; i < count; i++) {
                check(value(seed, peer, 2, i), out.getFloat((peer * count + i) * 4), "all-gather block of rank "
                        + peer, count, i);
            }
        }
    }

    private static void broadcast(Communicator comm, long seed, int count, int root, boolean shared, boolean inPlace) {
        ByteBuffer in = floats(count, shared);
        for (int i = 0; i < count; i++) {
            in.putFloat(i * 4, value(seed, comm.rank(), 3 + root, i));
        }
        ByteBuffer out = inPlace ? in : floats(count, shared);
        comm.broadcast(HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(out, DataType.FLOAT32), count, root);
        for (int i = 0; i < count; i++) {
            check(value(seed, root, 3 + root, i), out.getFloat(i * 4), (inPlace ? "in-place " : "") + "broadcast "
                    + "from rank " + root, count, i);
        }
    }

    static void allReduce(Communicator comm, long seed, int count, boolean shared, boolean inPlace) {
        int kind = inPlace ? 100 : 101;
        ByteBuffer in = floats(count, shared);
        for (int i = 0; i < count; i++) {
            in.putFloat(i * 4, value(seed, comm.rank(), kind, i));
        }
        ByteBuffer out = inPlace ? in : floats(count, shared);
        comm.allReduce(HostBuffer.of(in, DataType.FLOAT32), HostBuffer.of(out, DataType.FLOAT32), count, ReduceOp.SUM);
        for (int i = 0; i < count; i++) {
            double sum = 0;
            for (int r = 0; r < comm.size(); r++) {
                sum += value(seed, r, kind, i);
            }
            check(sum, out.getFloat(i * 4), (inPlace ? "in-place " : "") + "all-reduce", count, i);
        }
    }

    static void reduceScatter(Communicator comm, long seed, int count, boolean shared, boolean inPlace) {
        int n = comm.size();
        int me = comm.rank();
        int kind = inPlace ? 200 : 201;
        ByteBuffer in = floats((long) count * n, shared);
        for (int i = 0; i < count * n; i++) {
            in.putFloat(i * 4, value(seed, me, kind, i));
        }
        HostBuffer data = HostBuffer.of(in, DataType.FLOAT32);
        ByteBuffer out = inPlace ? null : floats(count, shared);
        if (inPlace) {
            comm.reduceScatter(data, count, ReduceOp.SUM);
        } else {
            comm.reduceScatter(data, HostBuffer.of(out, DataType.FLOAT32), count, ReduceOp.SUM);
        }
        for (int i = 0; i < count; i++) {
            double sum = 0;
            for (int r = 0; r < n; r++) {
                sum += value(seed, r, kind, (long) me * count + i);
            }
            float got = inPlace ? in.getFloat((me * count + i) * 4) : out.getFloat(i * 4);
            check(sum, got, (inPlace ? "in-place " : "") + "reduce-scatter", count, i);
        }
    }

    private static void check(double expected, float got, String what, int count, int i) {
        if (got != expected) {
            throw new AssertionError(what + " of " + count + " elements: element " + i + " is " + got
                    + " where the reference is " + expected);
        }
    }
}
