package io.jcoll.internal;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.NetworkReport;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code jcoll doctor --run}: forms a real job of a few ranks as threads of
 * this JVM (one GPU each under NCCL), checks one AllReduce, and asks the
 * transport what it really used, so the report shows NCCL's actual choice of
 * paths and network rather than the probe's expectation.
 */
final class DoctorRun {

    private static final int COUNT = 1 << 20;

    private DoctorRun() {
    }

    /** Two ranks, or one per visible GPU when NCCL is chosen and fewer than two GPUs are visible. */
    static int defaultRanks(DoctorReport report) {
        Availability nccl = report.verdicts.get("nccl");
        if ("nccl".equals(report.chosen) && nccl != null) {
            int gpus = Integer.parseInt(nccl.facts().getOrDefault("visible_gpus", "1"));
            return Math.max(1, Math.min(2, gpus));
        }
        return 2;
    }

    static DoctorReport.Run run(Settings settings, int ranks) {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        } catch (IOException e) {
            return new DoctorReport.Run(ranks, false, null, null, "no free local port: " + e.getMessage());
        }
        AtomicReference<String> error = new AtomicReference<>();
        AtomicReference<String> transport = new AtomicReference<>();
        AtomicReference<NetworkReport> network = new AtomicReference<>();
        Thread[] threads = new Thread[ranks];
        for (int r = 0; r < ranks; r++) {
            final int rank = r;
            threads[r] = new Thread(() -> {
                Settings mine = settings.with("JCOLL_RANK", Integer.toString(rank))
                        .with("JCOLL_WORLD_SIZE", Integer.toString(ranks))
                        .with("JCOLL_LOCAL_RANK", Integer.toString(rank))
                        .with("JCOLL_LOCAL_WORLD_SIZE", Integer.toString(ranks))
                        .with("JCOLL_MASTER_ADDR", "127.0.0.1")
                        .with("JCOLL_MASTER_PORT", Integer.toString(port))
                        .with("JCOLL_TOKEN", "doctor-" + port)
                        .with("JCOLL_TIMEOUT", settings.get("JCOLL_TIMEOUT").orElse("60s"));
                try (Communicator c = Bootstrap.create(mine)) {
                    float[] data = new float[COUNT];
                    for (int i = 0; i < COUNT; i++) {
                        data[i] = rank + 1 + (i % 7);
                    }
                    c.allReduce(HostBuffer.of(data), ReduceOp.SUM);
                    float rankSum = ranks * (ranks + 1) / 2f;
                    for (int i = 0; i < COUNT; i++) {
                        float want = rankSum + ranks * (i % 7);
                        if (data[i] != want) {
                            error.compareAndSet(null, "rank " + rank + " element " + i + " is " + data[i] + ", expected " + want);
                            break;
                        }
                    }
                    if (rank == 0) {
                        transport.set(c.transport().toString());
                        network.set(c.network());
                    }
                } catch (RuntimeException e) {
                    error.compareAndSet(null, "rank " + rank + ": " + e.getMessage());
                }
            }, "doctor-rank-" + r);
            threads[r].start();
        }
        for (Thread t : threads) {
            try {
                t.join(Duration.ofMinutes(2).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return new DoctorReport.Run(ranks, error.get() == null, transport.get(), network.get(), error.get());
    }
}
