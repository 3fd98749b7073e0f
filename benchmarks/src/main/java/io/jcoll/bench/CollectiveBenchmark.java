package io.jcoll.bench;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * JMH bandwidth runs: one collective over one transport, ranks as JMH threads of one
 * JVM ({@code -t N}; for NCCL, one GPU per rank). Each iteration every rank makes the
 * same number of calls ({@link Mode#SingleShotTime}, one invocation of {@code calls}
 * collectives): JMH's timed modes stop each thread on its own clock, and a rank that
 * stops while its peers are inside a collective would leave them waiting.
 *
 * <p>The primary score is the time of one invocation (all {@code calls} collectives).
 * The secondary results read like an nccl-tests line: {@code time_us} per call and
 * {@code busbw_GBps} (nccl-tests' bus bandwidth), both of the slowest rank, from the
 * same timing. Example: {@code java -jar benchmarks/target/benchmarks.jar -t 4
 * -p op=allreduce -p bytes=8,1048576,67108864}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "-XX:MaxDirectMemorySize=4g"})
@Threads(2)
@State(Scope.Benchmark)
public class CollectiveBenchmark {

    /** {@code tcp}, or {@code nccl} on a machine with a GPU per rank. */
    @Param({"tcp"})
    public String transport;

    @Param({"allreduce", "allgather", "reducescatter", "alltoall", "broadcast"})
    public String op;

    /** The largest buffer of the call, as nccl-tests counts it. */
    @Param({"8", "65536", "1048576", "16777216", "268435456"})
    public long bytes;

    private final AtomicInteger nextRank = new AtomicInteger();
    private int ranks;
    private int port;

    @Setup(Level.Trial)
    public void group(BenchmarkParams params) {
        ranks = params.getThreads();
        nextRank.set(0);
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One rank: its communicator and buffers, made when JMH starts its thread. */
    @State(Scope.Thread)
    public static class Rank {
        Communicator comm;
        Layout.Arenas arenas;
        Layout layout;
        Collective collective;
        int calls;
        long testBytes;
        double busFactor;

        @Setup(Level.Trial)
        public void join(CollectiveBenchmark bench) {
            int rank = bench.nextRank.getAndIncrement();
            comm = Jcoll.builder().rank(rank).size(bench.ranks).localRank(rank).master("127.0.0.1", bench.port)
                    .token("jmh").transport(bench.transport).timeout(Duration.ofMinutes(5)).build();
            collective = Collective.parse(bench.op);
            boolean device = comm.transport().name().equals("nccl");
            // rounded as jcoll perf rounds (a whole block per rank where the op splits), and at least one step
            long unit = collective.unitBytes(DataType.FLOAT32, bench.ranks);
            testBytes = Math.max(bench.bytes / unit, 1) * unit;
            long total = testBytes / DataType.FLOAT32.size();
            arenas = device ? Layout.Arenas.device(testBytes, DataType.FLOAT32, rank)
                    : Layout.Arenas.host(testBytes, DataType.FLOAT32);
            layout = Layout.of(collective, arenas, DataType.FLOAT32, total, rank, bench.ranks, false);
            // enough calls for a measurable iteration: about 64 MB moved, at least 5 calls and at most 2000
            calls = (int) Math.max(5, Math.min(2000, (64L << 20) / Math.max(bench.bytes, 1)));
            busFactor = collective.busFactor(bench.ranks);
        }

        @TearDown(Level.Trial)
        public void leave() {
            arenas.close();
            comm.close();
        }
    }

    /**
     * The secondary results: per-call time and bus bandwidth of the slowest rank. JMH adds
     * event counters over the threads and over the measured iterations, so rank 0 alone
     * reports, and reports each iteration's figure divided by the number of iterations:
     * the sums JMH prints are then the means.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Line {
        public double time_us;
        public double busbw_GBps;
        private int iterations;

        @Setup(Level.Trial)
        public void plan(BenchmarkParams params) {
            iterations = Math.max(1, params.getMeasurement().getCount());
        }

        @Setup(Level.Iteration)
        public void clear() {
            time_us = 0;
            busbw_GBps = 0;
        }

        void report(double seconds, double busbw) {
            time_us = seconds * 1e6 / iterations;
            busbw_GBps = busbw / iterations;
        }
    }

    @Benchmark
    public void collective(Rank r, Line line) {
        long start = System.nanoTime();
        for (int i = 0; i < r.calls; i++) {
            r.collective.run(r.comm, r.layout, ReduceOp.SUM, 0);
        }
        double[] seconds = {(System.nanoTime() - start) / 1e9 / r.calls};
        r.comm.allReduce(io.jcoll.HostBuffer.of(seconds), ReduceOp.MAX);
        if (r.comm.rank() == 0) {
            line.report(seconds[0], r.testBytes / seconds[0] / 1e9 * r.busFactor);
        }
    }
}
