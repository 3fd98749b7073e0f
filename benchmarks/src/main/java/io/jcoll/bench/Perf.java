package io.jcoll.bench;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.gpu.GpuRuntime;
import io.jcoll.launch.Launcher;
import io.jcoll.spi.Settings;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code jcoll perf}: measures one collective over a range of sizes and prints
 * nccl-tests' table (time, algorithm and bus bandwidth, wrong elements, out of
 * place and in place) and its closing average bus bandwidth, so that the two
 * can be read side by side. With {@code -n N} outside a launcher it starts N
 * local ranks of itself; under a launcher each process is one rank.
 */
public final class Perf {

    private Perf() {
    }

    public static void main(String[] argv) {
        List<String> args = Arrays.asList(argv);
        PerfOptions options;
        try {
            options = PerfOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("jcoll perf: " + e.getMessage());
            System.err.println(PerfOptions.USAGE);
            System.exit(2);
            return;
        }
        becomeRanks(options.ranks() == 0 ? 2 : options.ranks(), Perf.class, PerfOptions.withoutRanks(args),
                Duration.ofSeconds(15));
        int code;
        Jcoll.Builder builder = Jcoll.builder();
        if (options.transport() != null) {
            builder.transport(options.transport());
        }
        try (Communicator comm = builder.build()) {
            code = runOnGroups(comm, options) == 0 ? 0 : 3;
        }
        System.exit(code);
    }

    /**
     * Outside a launcher, starts {@code ranks} local JVMs running {@code main} with {@code args} (and
     * JCOLL_JAVA_OPTS) and exits with the launcher's code; under a launcher, returns, and the caller is one rank.
     * Rank 0's lines are printed without the launcher's {@code [0] } prefix.
     *
     * @param grace how long the other ranks may run on after one fails
     */
    static void becomeRanks(int ranks, Class<?> main, List<String> args, Duration grace) {
        if (!Launcher.underLauncher()) {
            // rank 0's report goes out as written, as nccl-tests prints its table, so that what parses theirs
            // parses this; the other ranks' lines keep their [r] prefix
            System.exit(Launcher.launch(new Launcher.Plan(ranks, System.getProperty("java.class.path"),
                    main.getName(), args, jvmOptions(), grace).withRankZeroBare(), System.out, System.err));
        }
    }

    static List<String> jvmOptions() {
        String opts = System.getenv().getOrDefault("JCOLL_JAVA_OPTS", "").trim();
        return opts.isEmpty() ? List.of() : Arrays.asList(opts.split("\\s+"));
    }

    /**
     * The sweep on the whole job, or with {@code --group-size G} on sub-communicators of G ranks (ranks
     * {@code r / G} together), every group at once, as tensor- or data-parallel groups run side by side; rank 0
     * reports its group. G equal to the job's size still splits: one sub-communicator of every rank, to compare
     * with the same sweep on the communicator it was split from. Returns the wrong elements, summed over every rank of the job.
     */
    static long runOnGroups(Communicator comm, PerfOptions o) {
        int g = o.groupSize();
        if (g == 0) {
            return run(comm, o, comm.rank() == 0 ? System.out : null);
        }
        if (comm.size() % g != 0) {
            throw new IllegalArgumentException("--group-size " + g + " does not divide the " + comm.size() + " ranks");
        }
        long[] wrong = new long[1];
        try (Communicator group = comm.split(comm.rank() / g, comm.rank()).orElseThrow()) {
            if (comm.rank() == 0) {
                System.out.println("# on sub-communicators of " + g + " ranks (" + comm.size() / g
                        + " groups measured at once, ranks r / " + g + " together); this is group 0");
            }
            wrong[0] = run(group, o, comm.rank() == 0 ? System.out : null);
        }
        comm.allReduce(HostBuffer.of(wrong), ReduceOp.SUM);
        return wrong[0];
    }

    /** One measured row. */
    /** @param p99Us the 99th percentile of single out-of-place calls on the slowest rank; NaN where calls are not
     *               timed one by one (launched back to back, then one wait) */
    record Row(long bytes, long count, double[] timeUs, double[] algbw, double[] busbw, long[] wrong, double p99Us) {
    }

    /** Mean seconds per call, and the 99th percentile of single calls (NaN where they were not timed singly). */
    private record Timing(double mean, double p99) {
    }

    /** Runs the whole sweep; rank 0 prints. Returns the total number of wrong elements. */
    static long run(Communicator comm, PerfOptions o, PrintStream out) {
        int n = comm.size();
        List<Long> sizes = o.sizes(n);
        long maxBytes = sizes.isEmpty() ? 8 : sizes.get(sizes.size() - 1);
        boolean device = o.deviceMemory(comm.transport().name());
        Layout.Arenas arenas = o.sharedMemory() ? Layout.Arenas.shared(maxBytes, o.type())
                : arenas(comm, maxBytes, o.type(), device);
        if (out != null) {
            header(out, comm, o);
        }
        warmUpJit(comm, o, arenas, sizes, maxBytes);
        long totalWrong = 0;
        double busSum = 0;
        int busCount = 0;
        List<Row> rows = new ArrayList<>();
        for (long bytes : sizes) {
            Row row = measure(comm, o, arenas, bytes, o.warmup(), o.iters(), true);
            totalWrong += Math.max(0, row.wrong()[0]) + Math.max(0, row.wrong()[1]);
            busSum += row.busbw()[0] + row.busbw()[1];
            busCount += 2;
            rows.add(row);
            if (out != null) {
                line(out, o, row);
            }
        }
        if (out != null) {
            out.printf(Locale.ROOT, "# Out of bounds values : %d %s%n", totalWrong, totalWrong == 0 ? "OK" : "FAILED");
            out.printf(Locale.ROOT, "# Avg bus bandwidth    : %.4f %n", busCount == 0 ? 0 : busSum / busCount);
            out.println("#");
            // after the runs, because NCCL connects the ranks at the first collective
            out.println("# network (rank 0, as the transport reports it): " + comm.network());
            out.printf(Locale.ROOT, "# Java heap allocated per call (rank 0's timed loops, its own thread): %.1f bytes%n",
                    timedCalls == 0 ? 0.0 : (double) timedAllocatedBytes / timedCalls);
            if (o.csv() != null) {
                writeCsv(Path.of(o.csv()), comm, o, rows);
            }
        }
        arenas.close();
        return totalWrong;
    }

    /** Host arenas, or arenas on this rank's GPU (the one the NCCL transport would use). */
    static Layout.Arenas arenas(Communicator comm, long maxBytes, DataType type, boolean device) {
        if (!device) {
            return Layout.Arenas.host(maxBytes, type);
        }
        // the communicator's own GPU where it has one: a sub-communicator's local rank counts its members only
        int gpu = comm.unwrap(io.jcoll.nccl.NcclAccess.class).map(io.jcoll.nccl.NcclAccess::device)
                .orElseGet(() -> GpuRuntime.deviceFor(Settings.fromEnvironment(), comm.localRank(),
                        GpuRuntime.require("perf", comm.rank()).devices()));
        return Layout.Arenas.device(maxBytes, type, gpu);
    }

    /** Heap bytes this thread allocated in the timed loops, and their calls: what the Java layer costs per call. */
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    private static long timedAllocatedBytes;
    private static long timedCalls;

    /** Untimed small calls before the sweep, enough for the JIT to compile the call path (C code needs none of this). */
    static final int JIT_WARMUP_CALLS = 12_000;
    /** Sizes up to this are small: cheap to rehearse one by one, and where a compiling JIT shows most. */
    private static final long SMALL_BYTES = 64 << 10;
    /** Calls per loop in a rehearsal of a small size (its warm-up is a tenth of that). */
    private static final int REHEARSAL_CALLS = 1_000;
    /** Calls per loop (and untimed before it) in the rehearsal of the sweep's first large size. */
    private static final int LARGE_REHEARSAL_CALLS = 10;
    /** Untimed 1 MB calls: the large-message algorithms (rings, pipelines) are other code, compiled on their own. */
    static final int JIT_WARMUP_LARGE_CALLS = 300;
    /**
     * Untimed calls on a message large enough to be split over every channel a transport has (up to 8 MB):
     * the 1 MB calls run on one, and a sweep that first meets the others timed them settling in. Measured with
     * this perf: 8 ranks on 32 cores, AllReduce at 8 MB as a sweep's first size, 4.6-4.9 ms a call over 100
     * calls against 2.5 ms over 2,000 (benchmarks/results/gpu-2026-11-23-rounds); 2 ranks on 2 cores with 4
     * channels, the first size out of place took 1.1-1.4x its in-place time, 1.06-1.07x when it came second.
     */
    static final int SPLIT_WARMUP_CALLS = 100;
    private static final long SPLIT_WARMUP_BYTES = 8 << 20;

    /**
     * Gets the JIT and the connections to the state the timed sweep will find them in, so that every size is
     * timed on compiled code: C2 compiles a method after about ten thousand calls, and a sweep timed before
     * that measures the interpreter (and, on a GPU, the interpreter launching kernels).
     * <ol>
     * <li>{@link #JIT_WARMUP_CALLS} calls, in and out of place, on a small message (near the sweep's first size,
     * 1 to 64 KB);</li>
     * <li>a rehearsal of the sweep's sizes up to 64 KB, each measured and checked exactly as the sweep will (its
     * figures dropped): the sweep's own reductions (the slowest rank's time in float64, the check's counts in
     * int64) take paths through the code the timed op takes, and a compiled method that first meets them
     * mid-sweep is thrown away and recompiled while the next size is timed;</li>
     * <li>where the sweep reaches 1 MB, {@link #JIT_WARMUP_LARGE_CALLS} calls on 1 MB and
     * {@link #SPLIT_WARMUP_CALLS} on up to 8 MB, then the sweep's first size above 64 KB measured as the sweep will
     * ({@link #rehearseFirstLargeSize});</li>
     * <li>the rehearsal once more: its larger sizes take branches its first sizes did not (a reduction's
     * vectorised chunks), the JIT throws away the code compiled without them, and the methods then run
     * slower code, profiled afresh, for thousands of calls before C2 compiles them again; with no compilation
     * meanwhile, the wait below cannot see it. Measured on 2 cores, 2 ranks, `-b 8 -e 32K -w 500 -i 5000`:
     * ReduceScatter's and All-to-All's first size took 36-84 us with one pass (C2 recompiling
     * RecursiveHalvingReduceScatter.run and Reductions.combine while it was timed, -XX:+PrintCompilation),
     * 10-18 us with two; benchmarks/RESULTS.md;</li>
     * <li>each sweep size above 64 KB (to 32 MB), measured and checked as the sweep will, in bursts until the
     * compiler has nothing new ({@link #settleLargeSizes});</li>
     * <li>where {@code --jit-warmup} asks for more than {@link #JIT_WARMUP_CALLS} calls, the rest of them on the
     * sweep's first size: on 2 cores, where two spinning ranks leave the compiler little time, an 8-byte
     * AllReduce over shared memory took 0.57-0.77 us a call after 300,000 warm-up calls and 0.33 after 3 million
     * (about a second);</li>
     * <li>a wait for the compiler to finish: with as many ranks as cores, a compilation still queued runs beside
     * the first timed sizes and takes a rank's core; then a burst of the first size ({@link #resume}).</li>
     * </ol>
     * (Measured on 2 cores, 2 ranks, an 8-64 B AllReduce sweep: without the rehearsal and the wait, the first
     * size took 28-40 us and the others 8-25.) Counts, not time: every rank must make the same calls.
     */
    private static void warmUpJit(Communicator comm, PerfOptions o, Layout.Arenas arenas, List<Long> sizes,
            long maxBytes) {
        long first = sizes.isEmpty() ? 0 : sizes.get(0);
        long small = Math.min(Math.max(first, 1024), Math.min(maxBytes, SMALL_BYTES));
        int initial = Math.min(o.jitWarmup(), JIT_WARMUP_CALLS);
        warmUp(comm, o, arenas, small, initial);
        rehearseSmallSizes(comm, o, arenas, sizes);
        if (maxBytes >= (1 << 20)) {
            warmUp(comm, o, arenas, 1 << 20, JIT_WARMUP_LARGE_CALLS);
            warmUp(comm, o, arenas, Math.min(maxBytes, SPLIT_WARMUP_BYTES), SPLIT_WARMUP_CALLS);
        }
        rehearseFirstLargeSize(comm, o, arenas, sizes);
        rehearseSmallSizes(comm, o, arenas, sizes);
        settleLargeSizes(comm, o, arenas, sizes);
        if (o.jitWarmup() > initial) {
            // the rest of a longer warm-up, once every path the sweep takes has been met: what C2 compiles now
            // (and recompiles after a deoptimization) is what the sweep will run
            warmUp(comm, o, arenas, first > 0 && first <= SMALL_BYTES ? first : small, o.jitWarmup() - initial);
        }
        JitQuiet.await(Duration.ofMillis(200), Duration.ofSeconds(10));
        resume(comm, o, arenas, sizes);
        comm.barrier();
    }

    /**
     * A burst of the sweep's first size right before it, after the ranks slept while the compiler finished: on
     * two CPUs the first size's first form came back slow from that sleep for longer than a short warm-up (2 ranks,
     * AllReduce at 128 KB first in the sweep, warm-up 20: 270-340 us a call timed first, 85-200 in place timed
     * second; 115-130 out of place when timed second, and 89-148 with warm-up 200; benchmarks/RESULTS.md).
     */
    private static void resume(Communicator comm, PerfOptions o, Layout.Arenas arenas, List<Long> sizes) {
        if (!sizes.isEmpty()) {
            long first = sizes.get(0);
            warmUp(comm, o, arenas, first, 2 * settleCalls(first));
        }
    }

    /** Calls in one settling burst of {@code bytes}: about {@link #SETTLE_BURST_BYTES}, within bounds. */
    private static int settleCalls(long bytes) {
        return (int) Math.max(SETTLE_MIN_CALLS, Math.min(SETTLE_MAX_CALLS, SETTLE_BURST_BYTES / Math.max(1, bytes)));
    }

    /** Measures and checks each sweep size up to {@link #SMALL_BYTES} as the sweep will, dropping the figures. */
    private static void rehearseSmallSizes(Communicator comm, PerfOptions o, Layout.Arenas arenas, List<Long> sizes) {
        for (long bytes : sizes) {
            if (bytes <= SMALL_BYTES) {
                measure(comm, o, arenas, bytes, REHEARSAL_CALLS / 10, REHEARSAL_CALLS, false);
            }
        }
    }

    /**
     * Measures and checks the sweep's first size above {@link #SMALL_BYTES} a few times, dropping the figures: the
     * warm-up's large calls run in its own loop, and the timed loop, compiled on the small sizes, first met the
     * large-message paths (chunks, pipelines, crews) while timed. Measured on the GPU host's 32 cores, shm, 2 ranks,
     * `-b 1M -e 64M -w 3 -i 10`: the first size out of place had one call of 2.4-2.8 ms among ten in 8 of the 10
     * sweeps of the five ops, where in place (timed next) took 66-284 us a call
     * (benchmarks/results/gpu-2026-11-26-shm-32).
     */
    private static void rehearseFirstLargeSize(Communicator comm, PerfOptions o, Layout.Arenas arenas, List<Long> sizes) {
        for (long bytes : sizes) {
            if (bytes > SMALL_BYTES) {
                measure(comm, o, arenas, bytes, LARGE_REHEARSAL_CALLS, LARGE_REHEARSAL_CALLS, false);
                return;
            }
        }
    }

    /** Bytes the first settling burst of a size moves (and {@link #resume}'s): its calls are this over the size. */
    private static final long SETTLE_BURST_BYTES = 64L << 20;
    private static final int SETTLE_MIN_CALLS = 8;
    private static final int SETTLE_MAX_CALLS = 1_000;
    /** The settling's whole time at most (the JIT may never go wholly quiet). */
    private static final Duration SETTLE_LIMIT = Duration.ofSeconds(20);
    /**
     * Larger sizes run the code of the sizes below and take long enough a call (milliseconds on CPUs) that a
     * compilation hides in them, where a burst of a gigabyte over TCP would take seconds.
     */
    private static final long SETTLE_MAX_BYTES = 32L << 20;

    /**
     * Measures and checks each sweep size above {@link #SMALL_BYTES} (to {@link #SETTLE_MAX_BYTES}) as the sweep will,
     * out of place and in place, in bursts until one leaves the compiler nothing new on any rank
     * ({@link JitQuiet#settle}; or the bursts or the time run out). The call counts of a warm-up leave the
     * large-message paths (pipelines, rings) compiling: C2 compiled and threw away the pipeline while the sweep timed
     * it (2 ranks on two CPUs, benchmarks/results/history-tcp.md). The first burst of a size is {@link #settleCalls}
     * calls a form, the next each last {@link JitQuiet#BURST} by the calls' time in the one before. Bursts of plain
     * calls, at most 1,000 of a size, left the compiler working into the sweep (2 ranks on the 2-vCPU VM, shm, 128 KB
     * to 32 MB): C2 compiled the check's loops over the output and the waiter's spin, 12-95 ms each and 0.14-0.44 s a
     * rank, while the two ranks spun on both CPUs (benchmarks/results/dev-2026-12-02-perf-settle).
     */
    private static void settleLargeSizes(Communicator comm, PerfOptions o, Layout.Arenas arenas, List<Long> sizes) {
        long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
        for (long bytes : sizes) {
            if (bytes <= SMALL_BYTES || bytes > SETTLE_MAX_BYTES) {
                continue;
            }
            int[] calls = {settleCalls(bytes)};
            boolean inTime = JitQuiet.settle(() -> {
                Row row = measure(comm, o, arenas, bytes, 0, calls[0], false);
                calls[0] = JitQuiet.callsLasting(JitQuiet.BURST, 1e3 * Math.max(row.timeUs()[0], row.timeUs()[1]));
            }, seen -> maxOverRanks(comm, seen), JitQuiet.MAX_BURSTS, deadline);
            if (!inTime) {
                return;
            }
        }
    }

    /** The largest of the ranks' {@code value}s. */
    private static long maxOverRanks(Communicator comm, long value) {
        long[] v = {value};
        comm.allReduce(HostBuffer.of(v), ReduceOp.MAX);
        return v[0];
    }

    private static void warmUp(Communicator comm, PerfOptions o, Layout.Arenas arenas, long bytes, int calls) {
        long total = bytes / o.type().size();
        for (int place = 0; place < 2; place++) {
            Layout l = Layout.of(o.op(), arenas, o.type(), total, comm.rank(), comm.size(), place == 1, o.skew());
            for (int done = 0; done < calls / 2; done += 100) {
                loop(comm, o, l, Math.min(100, calls / 2 - done), null); // waits every 100 calls: queued work stays bounded
            }
        }
    }

    /**
     * One row of the table: out of place, then in place (or the other way round, --in-place-first), each timed and
     * then checked.
     *
     * @param counted whether the timed loops count towards the heap allocated per call (not in a rehearsal)
     */
    private static Row measure(Communicator comm, PerfOptions o, Layout.Arenas arenas, long bytes, int warmup,
            int iters, boolean counted) {
        int n = comm.size();
        long total = bytes / o.type().size();
        double[] time = new double[2];
        double[] alg = new double[2];
        double[] bus = new double[2];
        long[] wrong = new long[2];
        double p99 = Double.NaN;
        for (int turn = 0; turn < 2; turn++) {
            int place = o.inPlaceFirst() ? 1 - turn : turn; // 0: out of place, 1: in place (columns keep that order)
            Layout l = Layout.of(o.op(), arenas, o.type(), total, comm.rank(), n, place == 1, o.skew());
            Timing t = time(comm, o, l, warmup, iters, counted, place == 0, bytes <= SMALL_BYTES);
            double seconds = t.mean();
            p99 = place == 0 ? t.p99() * 1e6 : p99;
            time[place] = seconds * 1e6;
            alg[place] = seconds > 0 ? bytes / seconds / 1e9 : 0;
            bus[place] = alg[place] * o.op().busFactor(n);
            wrong[place] = o.check() ? wrongEverywhere(comm, o, l) : -1;
        }
        return new Row(bytes, total, time, alg, bus, wrong, p99);
    }

    /**
     * Mean seconds per call after warm-up and the 99th percentile of single calls, each on the slowest rank. A mean
     * hides the odd call that takes twenty times its neighbours; the percentile shows it.
     *
     * @param percentile whether to time single calls for the percentile (the out-of-place row's column)
     * @param small      whether the calls are small enough that timing each one would weigh on the mean (two clock
     *                   reads are 30-50 ns, a tenth of a small shared-memory call): they are then timed singly in a
     *                   loop of their own, after the one the mean comes from, which reads the clock only around it,
     *                   as the peers' benchmarks do
     */
    private static Timing time(Communicator comm, PerfOptions o, Layout l, int warmup, int iters, boolean counted,
                               boolean percentile, boolean small) {
        // warm up the way the timed loop runs (as nccl-tests does), so that the GPU is at its working clocks
        // and the JIT has compiled the very path that is timed
        loop(comm, o, l, warmup, null);
        comm.barrier();
        boolean singly = percentile && !o.asyncLoop(comm.transport().name());
        long[] single = singly ? new long[iters] : null; // before the heap is read
        long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
        long start = System.nanoTime();
        loop(comm, o, l, iters, small ? null : single);
        long elapsed = System.nanoTime() - start;
        if (counted) {
            timedAllocatedBytes += THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore;
            timedCalls += iters;
        }
        if (singly && small) {
            loop(comm, o, l, iters, single);
        }
        double p99 = Double.NaN;
        if (single != null && iters > 0) {
            java.util.Arrays.sort(single);
            p99 = single[Math.min(iters - 1, (int) Math.ceil(0.99 * iters) - 1)] / 1e9;
        }
        double[] slowest = {elapsed / 1e9 / iters, Double.isNaN(p99) ? 0 : p99};
        comm.allReduce(HostBuffer.of(slowest), ReduceOp.MAX);
        return new Timing(slowest[0], Double.isNaN(p99) ? Double.NaN : slowest[1]);
    }

    /**
     * {@code n} calls: launched back to back and one wait where the transport queues work, else one by one, each
     * call's nanoseconds into {@code single} when it is given.
     */
    private static void loop(Communicator comm, PerfOptions o, Layout l, int n, long[] single) {
        if (o.asyncLoop(comm.transport().name())) {
            io.jcoll.Request last = null;
            for (int i = 0; i < n; i++) {
                last = o.op().start(comm, l, o.redop(), o.root());
            }
            if (last != null) {
                last.await();
            }
        } else {
            for (int i = 0; i < n; i++) {
                long t = single == null ? 0 : System.nanoTime();
                o.op().run(comm, l, o.redop(), o.root());
                if (single != null) {
                    single[i] = System.nanoTime() - t;
                }
            }
        }
    }

    private static long wrongEverywhere(Communicator comm, PerfOptions o, Layout l) {
        DataCheck.fill(o.op(), l, o.type(), o.redop(), comm.rank(), comm.size(), o.root());
        o.op().run(comm, l, o.redop(), o.root());
        long[] wrong = {DataCheck.wrong(o.op(), l, o.type(), o.redop(), comm.rank(), comm.size(), o.root())};
        comm.allReduce(HostBuffer.of(wrong), ReduceOp.SUM);
        return wrong[0];
    }

    private static void header(PrintStream out, Communicator comm, PerfOptions o) {
        out.printf(Locale.ROOT, "# jcoll perf %s: %d ranks, %s, sizes %d to %d bytes, warmup %d, iters %d%n",
                o.op().label(), comm.size(), o.type().ncclName(), o.sizes(comm.size()).get(0), o.maxBytes(),
                o.warmup(), o.iters());
        out.println("# transport: " + comm.transport());
        if (o.op() == Collective.ALLTOALLV) {
            out.printf(Locale.ROOT, "# alltoallv skew %.2f: blocks of %.2f to %.2f times the even size%n", o.skew(),
                    1 - o.skew(), 1 + o.skew());
        }
        if (!o.op().hasInPlace()) {
            out.println("# " + o.op().label() + " has no in-place form: the in-place columns run it out of place again");
        }
        out.println("# memory: " + (o.deviceMemory(comm.transport().name()) ? "device (GPU)"
                : o.sharedMemory() ? "host, from io.jcoll.SharedMemory" : "host")
                + ", timing: " + (o.asyncLoop(comm.transport().name()) ? "all iterations launched, then one wait"
                : "one blocking call after another"));
        out.println("#");
        out.println("#                                                              out-of-place                       in-place                    ");
        out.println("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong      p99");
        out.println("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)            (us)");
    }

    private static void line(PrintStream out, PerfOptions o, Row r) {
        String redop = o.op().reduces() ? o.redop().toString() : "none";
        int root = o.op() == Collective.BROADCAST || o.op() == Collective.REDUCE || o.op() == Collective.GATHER
                || o.op() == Collective.SCATTER ? o.root() : -1;
        out.printf(Locale.ROOT, "%12d  %12d  %8s  %6s  %6d  %s  %s  %7s%n", r.bytes(), r.count(), o.type().ncclName(),
                redop, root, cells(r, 0), cells(r, 1), Double.isNaN(r.p99Us()) ? "-" : time(r.p99Us()));
    }

    private static String cells(Row r, int p) {
        return String.format(Locale.ROOT, "%7s  %6.2f  %6.2f  %5s", time(r.timeUs()[p]), r.algbw()[p], r.busbw()[p],
                r.wrong()[p] < 0 ? "N/A" : Long.toString(r.wrong()[p]));
    }

    private static String time(double us) {
        return us >= 10_000 ? String.format(Locale.ROOT, "%.0f", us)
                : us >= 100 ? String.format(Locale.ROOT, "%.1f", us) : String.format(Locale.ROOT, "%.2f", us);
    }

    private static void writeCsv(Path file, Communicator comm, PerfOptions o, List<Row> rows) {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file))) {
            w.println("system,op,ranks,type,redop,bytes,count,time_us,algbw_gbs,busbw_gbs,wrong,time_inplace_us,algbw_inplace_gbs,busbw_inplace_gbs,wrong_inplace");
            for (Row r : rows) {
                w.printf(Locale.ROOT, "jcoll-%s,%s,%d,%s,%s,%d,%d,%.3f,%.4f,%.4f,%d,%.3f,%.4f,%.4f,%d%n",
                        comm.transport().name(), o.op().label(), comm.size(), o.type().ncclName(), o.redop(),
                        r.bytes(), r.count(), r.timeUs()[0], r.algbw()[0], r.busbw()[0], r.wrong()[0],
                        r.timeUs()[1], r.algbw()[1], r.busbw()[1], r.wrong()[1]);
            }
        } catch (IOException e) {
            System.err.println("jcoll perf: could not write " + file + ": " + e.getMessage());
        }
    }

}
