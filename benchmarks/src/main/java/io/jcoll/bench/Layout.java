package io.jcoll.bench;

import io.jcoll.Buffer;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.gpu.DeviceBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The buffers of one measured call, carved out of two arenas allocated once
 * for the largest size, laid out out-of-place or in-place as NCCL defines it.
 *
 * @param send  input
 * @param recv  output
 * @param count the call's count argument
 */
public record Layout(Buffer send, Buffer recv, long count) {

    /** Two arenas of {@code maxBytes} each, in host or GPU memory, reused for every size. */
    public record Arenas(Buffer a, Buffer b) implements AutoCloseable {
        /** Direct host memory. */
        public static Arenas host(long maxBytes, DataType type) {
            if (maxBytes > Integer.MAX_VALUE - 64) {
                throw new IllegalArgumentException("sizes above 2 GB per buffer are not supported by host buffers");
            }
            int bytes = (int) Math.max(maxBytes, 8) / type.size() * type.size();
            return new Arenas(HostBuffer.of(ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder()), type),
                    HostBuffer.of(ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder()), type));
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
        long count = op.perRankCount(total, n);
        long sendCount = switch (op) {
            case ALLREDUCE, BROADCAST, ALLGATHER -> count;
            case REDUCESCATTER, ALLTOALL -> count * n;
        };
        long recvCount = switch (op) {
            case ALLREDUCE, BROADCAST, REDUCESCATTER -> count;
            case ALLGATHER, ALLTOALL -> count * n;
        };
        Buffer a = arenas.a().slice(0, Math.max(sendCount, recvCount));
        if (!inPlace) {
            return new Layout(arenas.a().slice(0, sendCount), arenas.b().slice(0, recvCount), count);
        }
        return switch (op) {
            case ALLREDUCE, BROADCAST, ALLTOALL -> new Layout(a, a, count);
            case ALLGATHER -> new Layout(a.slice(rank * count, count), a, count);
            case REDUCESCATTER -> new Layout(a, a.slice(rank * count, count), count);
        };
    }
}
