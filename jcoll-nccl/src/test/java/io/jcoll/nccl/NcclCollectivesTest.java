package io.jcoll.nccl;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.gpu.DeviceBuffer;
import io.jcoll.gpu.GpuRuntime;
import io.jcoll.testing.Case;
import io.jcoll.testing.Data;
import io.jcoll.testing.Ops;
import io.jcoll.testing.Ranks;
import io.jcoll.testing.Verify;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * NCCL through the public API, one GPU per rank, ranks as threads. Skips, with
 * the probe's reason, where there are fewer than two GPUs or no NCCL.
 */
class NcclCollectivesTest {

    private static int gpus;

    @BeforeAll
    static void needGpus() {
        GpuRuntime.Status s = GpuRuntime.status();
        gpus = s.devices();
        String why = !s.available() ? "no usable GPU stack here: " + s.reason() : "needs two GPUs, found " + gpus;
        if (!s.available() || gpus < 2) {
            System.out.println("SKIPPED NcclCollectivesTest: " + why);
        }
        assumeTrue(s.available() && gpus >= 2, why);
    }

    private static Communicator join(int rank, int n, int port) {
        return Jcoll.builder().rank(rank).size(n).localRank(rank).master("127.0.0.1", port).token("t")
                .transport("nccl").timeout(Duration.ofSeconds(120)).build();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The whole matrix on host buffers, staged through pinned memory. */
    @Test
    void hostBuffersMatchTheReference() throws IOException {
        int n = 2;
        List<Case> cases = Case.matrix(new int[] {0, 1, 13, 1000}, true, n);
        int port = freePort();
        Ranks.all(n, Duration.ofMinutes(5), rank -> {
            try (Communicator c = join(rank, n, port)) {
                assertEquals("nccl", c.transport().name());
                for (int i = 0; i < cases.size(); i++) {
                    cases.get(i).run(Ops.of(c, i % 2 == 0));
                }
            }
            return null;
        });
    }

    /** Device buffers: every reduce op on float32 and bfloat16, checked on the host. */
    @Test
    void deviceBuffersMatchTheReference() throws IOException {
        int n = 2;
        int count = 1 << 20;
        int port = freePort();
        Ranks.all(n, Duration.ofMinutes(5), rank -> {
            try (Communicator c = join(rank, n, port)) {
                for (DataType t : new DataType[] {DataType.FLOAT32, DataType.BFLOAT16}) {
                    for (ReduceOp op : ReduceOp.values()) {
                        long seed = t.ordinal() * 10L + op.ordinal();
                        double[][] in = new double[n][];
                        for (int r = 0; r < n; r++) {
                            in[r] = Data.random(t, op, count, Ranks.seed(seed, r));
                        }
                        HostBuffer host = Data.buffer(t, Data.Kind.DIRECT, count, in[rank]);
                        try (DeviceBuffer d = DeviceBuffer.allocate(rank, t, count)) {
                            d.copyFrom(host);
                            c.allReduceAsync(d, d, count, op).await();
                            d.copyTo(host);
                        }
                        Verify.reduced(t + " " + op, t, op, in, Data.read(host, count), 0);
                    }
                }
            }
            return null;
        });
    }

    /**
     * Random bad arguments at the NCCL transport (with freed device memory, views of it, and memory on the other
     * GPU added to the usual ones), then bad arguments straight at the checked native layer: each is a Java
     * exception, NCCL never sees the pointer, and the communicator stays right.
     */
    @Test
    void randomBadArgumentsNeverReachNccl() throws IOException {
        int n = 2;
        int port = freePort();
        long seed = java.util.concurrent.ThreadLocalRandom.current().nextLong();
        Ranks.all(n, Duration.ofMinutes(5), rank -> {
            try (Communicator c = join(rank, n, port);
                 DeviceBuffer otherGpu = DeviceBuffer.allocate((rank + 1) % gpus, DataType.FLOAT32, 256)) {
                List<io.jcoll.testing.Abuse.BadBuffer> extras = List.of(
                        new io.jcoll.testing.Abuse.BadBuffer("freed device buffer", () -> {
                            DeviceBuffer b = DeviceBuffer.allocate(rank, DataType.FLOAT32, 256);
                            b.close();
                            return b;
                        }),
                        new io.jcoll.testing.Abuse.BadBuffer("view of a freed device buffer", () -> {
                            DeviceBuffer b = DeviceBuffer.allocate(rank, DataType.FLOAT32, 512);
                            DeviceBuffer view = b.slice(64, 256);
                            b.close();
                            return view;
                        }),
                        new io.jcoll.testing.Abuse.BadBuffer("device buffer on the other GPU", () -> otherGpu));
                var tally = io.jcoll.testing.Abuse.run(c, seed, 1000, extras);
                System.out.println("rank " + rank + " seed " + seed + ": refused " + tally);
                assertEquals(13, tally.size(), "every kind was tried: " + tally);

                DeviceBuffer mine = DeviceBuffer.allocate(rank, DataType.FLOAT32, 100);
                org.junit.jupiter.api.Assertions.assertThrows(IndexOutOfBoundsException.class, () -> mine.addressOf(101));
                org.junit.jupiter.api.Assertions.assertThrows(IndexOutOfBoundsException.class, () -> mine.slice(90, 11));
                org.junit.jupiter.api.Assertions.assertThrows(IndexOutOfBoundsException.class, () -> mine.slice(-1, 5));
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> mine.copyFrom(HostBuffer.of(new float[101])));
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> DeviceBuffer.allocate(rank, DataType.FLOAT32, -5));
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> DeviceBuffer.wrap(0, 400, rank, DataType.FLOAT32));
                mine.close();
                org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                        () -> mine.copyFrom(HostBuffer.of(new float[10])));
                org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, mine::address);
            }
            return null;
        });
    }
}
