package io.jcoll.bench;

import io.jcoll.Buffer;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.SharedMemory;
import io.jcoll.gpu.DeviceBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The buffers of one measured call, carved out of two arenas allocated once
 * for the largest size, laid out out-of-place or in-place as NCCL defines it.
 *
 * @param send   input
 * @param recv   output
 * @param count  the call's count argument
 * @param uneven an uneven all-to-all's block sizes and places; null for every other operation
 */
public record Layout(Buffer send, Buffer recv, long count, Uneven uneven) {

    public Layout(Buffer send, Buffer recv, long count) {
        this(send, recv, count, null);
    }

    /**
     * The blocks of an uneven all-to-all with skew {@code s}: rank r sends rank p
     * {@code base * (1 + s * (2 * ((r + p) mod n) / (n - 1) - 1))} elements, from {@code base * (1 - s)} to
     * {@code base * (1 + s)}, packed. The size depends on r + p only, so what r sends p is what p expects from r,
     * the send and receive layouts are one, and every rank moves about {@code n * base} elements each way.
     *
     * @param counts  elements to (and from) each rank
     * @param offsets where each rank's block starts, in both buffers
     * @param base    the block size with no skew
     * @param skew    how uneven the blocks are
     */
    public record Uneven(long[] counts, long[] offsets, long base, double skew) {
        static Uneven of(long base, double skew, int rank, int n) {
            long[] counts = new long[n];
            long[] offsets = new long[n];
            long at = 0;
            for (int p = 0; p < n; p++) {
                double position = n == 1 ? 0 : 2.0 * ((rank + p) % n) / (n - 1) - 1;
                counts[p] = (long) Math.floor(base * (1 + skew * position));
                offsets[p] = at;
                at += counts[p];
            }
            return new Uneven(counts, offsets, base, skew);
        }
    }

    /** Two arenas of {@code maxBytes} each, in host or GPU memory, reused for every size. */
    public record Arenas(Buffer a, Buffer b) implements AutoCloseable {
        /** Direct host memory. */
        public static Arenas host(long maxBytes, DataType type) {
            int bytes = hostBytes(maxBytes, type);
            return new Arenas(HostBuffer.of(ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder()), type),
                    HostBuffer.of(ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder()), type));
        }

        /** Host memory from {@link SharedMemory}, which the shm transport's peers read through their own mappings. */
        public static Arenas shared(long maxBytes, DataType type) {
            int bytes = hostBytes(maxBytes, type);
            return new Arenas(HostBuffer.of(SharedMemory.allocate(bytes), type),
                    HostBuffer.of(SharedMemory.allocate(bytes), type));
        }

        private static int hostBytes(long maxBytes, DataType type) {
            if (maxBytes > Integer.MAX_VALUE - 64) {
                throw new IllegalArgumentException("sizes above 2 GB per buffer are not supported by host buffers");
            }
            return (int) Math.max(maxBytes, 8) / type.size() * type.size();
        }

        /** Memory on GPU {@code device}, as nccl-tests uses. */
        public static Arenas device(long maxBytes, DataType type, int device) {
            long count = Math.max(maxBytes / type.size(), 1);
            return new Arenas(DeviceBuffer.allocate(device, type, count), DeviceBuffer.allocate(device, type, count));
        }

        @Override
        public void close() {
            for (Buffer x : new Buffer[] {a, b}) {
                if (x instanceof AutoCloseable c) {
                    try {
                        c.close();
                    } catch (Exception ignored) {
                        // best effort
                    }
                }
            }
        }
    }

    /**
     * @param total elements of the largest buffer of the test (nccl-tests' "count")
     */
    public static Layout of(Collective op, Arenas arenas, DataType type, long total, int rank, int n, boolean inPlace) {
        return of(op, arenas, type, total, rank, n, inPlace, 0);
    }

    /**
     * @param skew for an uneven all-to-all, how uneven its blocks are (0: all equal; see {@link Uneven})
     */
    public static Layout of(Collective op, Arenas arenas, DataType type, long total, int rank, int n, boolean inPlace,
                            double skew) {
        long count = op.perRankCount(total, n);
        long sendCount = switch (op) {
            case ALLREDUCE, BROADCAST, ALLGATHER, REDUCE, GATHER, SENDRECV -> count;
            case REDUCESCATTER, ALLTOALL, SCATTER, ALLTOALLV -> count * n;
        };
        long recvCount = switch (op) {
            case ALLREDUCE, BROADCAST, REDUCESCATTER, REDUCE, SCATTER, SENDRECV -> count;
            case ALLGATHER, ALLTOALL, GATHER, ALLTOALLV -> count * n;
        };
        Uneven uneven = op == Collective.ALLTOALLV ? Uneven.of(count, skew, rank, n) : null;
        Buffer a = arenas.a().slice(0, Math.max(sendCount, recvCount));
        if (!inPlace || !op.hasInPlace()) {
            return new Layout(arenas.a().slice(0, sendCount), arenas.b().slice(0, recvCount), count, uneven);
        }
        return switch (op) {
            case ALLREDUCE, BROADCAST, ALLTOALL, REDUCE -> new Layout(a, a, count);
            case ALLGATHER, GATHER -> new Layout(a.slice(rank * count, count), a, count);
            case REDUCESCATTER, SCATTER -> new Layout(a, a.slice(rank * count, count), count);
            case ALLTOALLV, SENDRECV -> throw new IllegalStateException(op + " has no in-place form");
        };
    }
}
