package io.jcoll.bench;

import io.jcoll.DataType;
import io.jcoll.HostBuffer;

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
public record Layout(HostBuffer send, HostBuffer recv, long count) {

    /** Two direct arenas of {@code maxBytes} each, reused for every size. */
    public record Arenas(ByteBuffer a, ByteBuffer b) {
        public static Arenas allocate(long maxBytes) {
            if (maxBytes > Integer.MAX_VALUE - 64) {
                throw new IllegalArgumentException("sizes above 2 GB per buffer are not supported by host buffers");
            }
            return new Arenas(ByteBuffer.allocateDirect((int) Math.max(maxBytes, 8)).order(ByteOrder.nativeOrder()),
                    ByteBuffer.allocateDirect((int) Math.max(maxBytes, 8)).order(ByteOrder.nativeOrder()));
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
        HostBuffer a = view(arenas.a(), type, Math.max(sendCount, recvCount));
        if (!inPlace) {
            return new Layout(view(arenas.a(), type, sendCount), view(arenas.b(), type, recvCount), count);
        }
        return switch (op) {
            case ALLREDUCE, BROADCAST, ALLTOALL -> new Layout(a, a, count);
            case ALLGATHER -> new Layout(a.slice(rank * count, count), a, count);
            case REDUCESCATTER -> new Layout(a, a.slice(rank * count, count), count);
        };
    }

    private static HostBuffer view(ByteBuffer arena, DataType type, long count) {
        return HostBuffer.of(arena.duplicate().order(ByteOrder.nativeOrder()).clear().limit((int) (count * type.size())), type);
    }
}
