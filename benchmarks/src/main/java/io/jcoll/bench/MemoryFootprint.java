package io.jcoll.bench;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What a large AllReduce costs in memory beyond the caller's own buffers: each rank
 * fills two buffers of SIZE bytes (default 1 GB), reads its resident set size
 * ({@code VmRSS}), runs 16 MB AllReduces (the transport sets up all its scratch, the JIT
 * compiles), reads it again, runs AllReduces of the whole SIZE and reads it a last
 * time. The last difference is what the message size costs: it must stay near zero
 * (scratch is a few segments whatever the size), never a copy of the message.
 * Run: {@code ./jcoll launch -n 2 -- io.jcoll.bench.MemoryFootprint [SIZE_MB]}
 * (with {@code JCOLL_JAVA_OPTS=-XX:MaxDirectMemorySize=3g}).
 */
public final class MemoryFootprint {

    private MemoryFootprint() {
    }

    public static void main(String[] args) throws IOException {
        long mb = args.length > 0 ? Long.parseLong(args[0]) : 1024;
        Perf.becomeRanks(2, MemoryFootprint.class, List.of(Long.toString(mb)), Duration.ofMinutes(10));
        int bytes = (int) Math.min(Integer.MAX_VALUE - 64L, mb << 20) / 4 * 4;
        try (Communicator comm = Jcoll.fromEnvironment()) {
            ByteBuffer send = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
            ByteBuffer recv = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
            for (int i = 0; i < bytes; i += 4) {
                send.putFloat(i, comm.rank() + 1);
                recv.putFloat(i, 0); // touched: both buffers are resident before the first reading
            }
            HostBuffer in = HostBuffer.of(send, io.jcoll.DataType.FLOAT32);
            HostBuffer out = HostBuffer.of(recv, io.jcoll.DataType.FLOAT32);
            comm.barrier();
            long buffersOnly = rssKb();
            for (int i = 0; i < 20; i++) {
                comm.allReduce(in, out, (16 << 20) / 4, ReduceOp.SUM); // 16 MB: the ring path, all its scratch, the JIT
            }
            long before = rssKb();
            long start = System.nanoTime();
            for (int i = 0; i < 3; i++) {
                comm.allReduce(in, out, bytes / 4, ReduceOp.SUM);
            }
            double seconds = (System.nanoTime() - start) / 1e9 / 3;
            long after = rssKb();
            float expected = comm.size() * (comm.size() + 1) / 2f;
            boolean right = recv.getFloat(0) == expected && recv.getFloat(bytes - 4) == expected;
            System.out.printf(java.util.Locale.ROOT, "rank %d over %s: AllReduce of %d MB: %.2f s per call, result %s; "
                            + "resident: %d MB with both buffers, +%d MB after 16 MB AllReduces (scratch, code), "
                            + "+%d MB more after the %d MB ones%n",
                    comm.rank(), comm.transport().name(), bytes >> 20, seconds, right ? "right" : "WRONG",
                    buffersOnly >> 10, (before - buffersOnly) >> 10, (after - before) >> 10, bytes >> 20);
        }
    }

    private static long rssKb() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
