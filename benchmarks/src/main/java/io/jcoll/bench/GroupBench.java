package io.jcoll.bench;

import io.jcoll.Buffer;
import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.Group;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.Request;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Timings of the process-group operations that {@code jcoll perf} does not sweep, each printed as its peers
 * print theirs ({@code benchmarks/gpu/torch_groups.py}, {@code benchmarks/gpu/split_bench.c}):
 * <ul>
 * <li>{@code split ITERS}: a communicator split off every rank's (one color) and closed again, per call: what
 * {@code ncclCommSplit} plus {@code ncclCommDestroy} costs in C, with jcoll's exchange of colors and the new
 * communicator's stream, events and watchdog on top;</li>
 * <li>{@code batch PAIRS MIN_BYTES MAX_BYTES ITERS}: a group of PAIRS sends to the next rank and receives from
 * the previous, each of its own buffer, as PyTorch's {@code batch_isend_irecv} batches a pipeline's
 * transfers; groups launched back to back, then one wait.</li>
 * <li>{@code launch ITERS}: the small-size launch path ({@code launch_bench.c} is its peer in C): for each
 * collective at 64 B-32 KB, ITERS asynchronous calls issued back to back, timing the issuing alone and the
 * issuing plus the wait for the last, after warm-up enough for the JIT (as {@code jcoll perf}).</li>
 * <li>{@code alongside OP CALLS ROUNDS}: OP on a sub-communicator of every rank and on its parent, in the same
 * processes, alternated: for each size from 8 B to 8 MB (x16), ROUNDS rounds of CALLS blocking calls on each up to
 * 64 KB, a hundredth of that (at least 10) above (the order turning each round), the slowest rank's mean time a call; prints each round's split / parent and the
 * median. Measured in one run, a difference is the sub-communicator's own (separate runs on a shared host differ
 * by more than that from run to run).</li>
 * </ul>
 * Device buffers under NCCL, host buffers otherwise. {@code jcoll launch -n N -- io.jcoll.bench.GroupBench ...}
 */
public final class GroupBench {

    private GroupBench() {
    }

    public static void main(String[] args) {
        Perf.becomeRanks(Integer.parseInt(System.getenv().getOrDefault("RANKS", "2")), GroupBench.class,
                List.of(args), Duration.ofSeconds(15));
        try (Communicator comm = Jcoll.fromEnvironment()) {
            switch (args[0]) {
                case "split" -> split(comm, Integer.parseInt(args[1]));
                case "launch" -> launch(comm, Integer.parseInt(args[1]));
                case "alongside" -> alongside(comm, Collective.parse(args[1]), Integer.parseInt(args[2]),
                        Integer.parseInt(args[3]));
                case "batch" -> batch(comm, Integer.parseInt(args[1]), Long.parseLong(args[2]), Long.parseLong(args[3]),
                        Integer.parseInt(args[4]));
                default -> throw new IllegalArgumentException("split ITERS | launch ITERS | alongside OP CALLS ROUNDS"
                        + " | batch PAIRS MIN_BYTES MAX_BYTES ITERS");
            }
        }
    }

    static void split(Communicator comm, int iters) {
        int threads = Thread.activeCount();
        int files = openFiles();
        System.out.printf(Locale.ROOT, "rank %d before: threads %d, open files %d%s%n", comm.rank(), threads, files,
                gpuMemory(comm));
        for (int i = 0; i < 3; i++) {
            comm.split(0, comm.rank()).orElseThrow().close();
        }
        comm.barrier();
        long start = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            try (Communicator sub = comm.split(0, comm.rank()).orElseThrow()) {
                if (sub.size() != comm.size()) {
                    throw new AssertionError("split of one color has " + sub.size() + " ranks");
                }
            }
        }
        double[] us = {(System.nanoTime() - start) / 1e3 / iters};
        comm.allReduce(HostBuffer.of(us), ReduceOp.MAX);
        if (comm.rank() == 0) {
            System.out.printf(Locale.ROOT, "split+close %d ranks over %s: %.1f us per split (slowest rank, %d splits)%n",
                    comm.size(), comm.transport().name(), us[0], iters);
        }
        System.out.printf(Locale.ROOT, "rank %d after %d splits: threads %d -> %d, open files %d -> %d%s%n",
                comm.rank(), iters + 3, threads, Thread.activeCount(), files, openFiles(), gpuMemory(comm));
    }

    private static int openFiles() {
        String[] fds = new java.io.File("/proc/self/fd").list();
        return fds == null ? 0 : fds.length;
    }

    /** Free GPU memory now, where the communicator has a GPU (what a leaked NCCL communicator would hold). */
    private static String gpuMemory(Communicator comm) {
        return comm.unwrap(io.jcoll.nccl.NcclAccess.class).map(a -> ", GPU " + a.device() + " free "
                + io.jcoll.gpu.Cuda.freeMemory(a.device()) / (1 << 20) + " MiB").orElse("");
    }

    static void launch(Communicator comm, int iters) {
        long[] sizes = {64, 512, 4096, 32768};
        Layout.Arenas arenas = Perf.arenas(comm, 1 << 20, DataType.FLOAT32, comm.transport().name().equals("nccl"));
        Collective[] ops = {Collective.ALLREDUCE, Collective.ALLGATHER, Collective.REDUCESCATTER, Collective.ALLTOALL,
            Collective.BROADCAST};
        for (Collective op : ops) {
            for (long bytes : sizes) {
                Layout l = Layout.of(op, arenas, DataType.FLOAT32, bytes / 4, comm.rank(), comm.size(), false);
                for (int i = 0; i < 12_000; i += 100) { // C2 compiles after about ten thousand calls
                    issue(comm, op, l, 100).await();
                }
                comm.barrier();
                long t0 = System.nanoTime();
                Request last = issue(comm, op, l, iters);
                long t1 = System.nanoTime();
                last.await();
                long t2 = System.nanoTime();
                double[] us = {(t1 - t0) / 1e3 / iters, (t2 - t0) / 1e3 / iters};
                comm.allReduce(HostBuffer.of(us), ReduceOp.MAX);
                if (comm.rank() == 0) {
                    System.out.printf(Locale.ROOT, "jcoll %-14s %8d bytes  launch %6.2f us  per call %6.2f us%n",
                            op.label(), bytes, us[0], us[1]);
                }
            }
        }
        arenas.close();
    }

    static void alongside(Communicator comm, Collective op, int calls, int rounds) {
        boolean device = comm.transport().name().equals("nccl");
        try (Communicator split = comm.split(0, comm.rank()).orElseThrow()) {
            Layout.Arenas parentArenas = Perf.arenas(comm, 8 << 20, DataType.FLOAT32, device);
            Layout.Arenas splitArenas = Perf.arenas(split, 8 << 20, DataType.FLOAT32, device);
            if (comm.rank() == 0) {
                System.out.printf(Locale.ROOT, "# %s on %d ranks (%s): a split of every rank against its parent, "
                        + "%d calls a round, time split / parent per round%n", op.label(), comm.size(),
                        comm.transport().name(), calls);
            }
            for (long bytes = 8; bytes <= 8 << 20; bytes *= 16) {
                long unit = op.unitBytes(DataType.FLOAT32, comm.size());
                long total = Math.max(unit, bytes / unit * unit) / 4; // elements: a size every rank count divides
                Layout parent = Layout.of(op, parentArenas, DataType.FLOAT32, total, comm.rank(), comm.size(), false);
                Layout sub = Layout.of(op, splitArenas, DataType.FLOAT32, total, split.rank(), split.size(), false);
                int warm = bytes <= (64 << 10) ? 12_000 : 20;  // C2 compiles after about ten thousand calls
                timed(comm, op, parent, warm);
                timed(split, op, sub, warm);
                int n = bytes <= (64 << 10) ? calls : Math.max(10, calls / 100);
                double[] ratios = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    boolean parentFirst = r % 2 == 0;
                    double first = parentFirst ? timed(comm, op, parent, n) : timed(split, op, sub, n);
                    double second = parentFirst ? timed(split, op, sub, n) : timed(comm, op, parent, n);
                    ratios[r] = parentFirst ? second / first : first / second;
                }
                if (comm.rank() == 0) {
                    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "alongside %-13s %9d B:",
                            op.label(), total * 4));
                    for (double x : ratios) {
                        line.append(String.format(Locale.ROOT, " %.3f", x));
                    }
                    double[] sorted = ratios.clone();
                    java.util.Arrays.sort(sorted);
                    double median = rounds % 2 == 1 ? sorted[rounds / 2]
                            : (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2;
                    System.out.println(line.append(String.format(Locale.ROOT, "  median %.3f", median)));
                }
            }
            splitArenas.close();
            parentArenas.close();
        }
    }

    /** The slowest rank's mean seconds a call over {@code calls} blocking calls (a barrier first). */
    private static double timed(Communicator comm, Collective op, Layout l, int calls) {
        comm.barrier();
        long start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            op.run(comm, l, ReduceOp.SUM, 0);
        }
        double[] seconds = {(System.nanoTime() - start) / 1e9 / calls};
        comm.allReduce(HostBuffer.of(seconds), ReduceOp.MAX);
        return seconds[0];
    }

    /** {@code n} asynchronous calls back to back; returns the last one's request. */
    private static Request issue(Communicator comm, Collective op, Layout l, int n) {
        Request last = null;
        for (int i = 0; i < n; i++) {
            last = op.start(comm, l, ReduceOp.SUM, 0);
        }
        return last;
    }

    static void batch(Communicator comm, int pairs, long minBytes, long maxBytes, int iters) {
        int n = comm.size();
        int next = (comm.rank() + 1) % n;
        int previous = (comm.rank() + n - 1) % n;
        boolean device = comm.transport().name().equals("nccl");
        for (long bytes = minBytes; bytes <= maxBytes; bytes *= 4) {
            long count = bytes / 4;
            List<Layout.Arenas> pairsOfBuffers = new ArrayList<>(); // one send and one receive buffer per pair
            List<Buffer> sends = new ArrayList<>();
            List<Buffer> recvs = new ArrayList<>();
            for (int k = 0; k < pairs; k++) {
                Layout.Arenas a = Perf.arenas(comm, bytes, DataType.FLOAT32, device);
                pairsOfBuffers.add(a);
                sends.add(a.a());
                recvs.add(a.b());
            }
            for (int i = 0; i < 5; i++) {
                group(comm, sends, recvs, count, next, previous).await();
            }
            comm.barrier();
            long start = System.nanoTime();
            Request last = null;
            for (int i = 0; i < iters; i++) {
                last = group(comm, sends, recvs, count, next, previous);
            }
            last.await();
            double[] seconds = {(System.nanoTime() - start) / 1e9 / iters};
            comm.allReduce(HostBuffer.of(seconds), ReduceOp.MAX);
            if (comm.rank() == 0) {
                System.out.printf(Locale.ROOT, "%-22s %12d %10.2f us %8.2f GB/s busbw%n", "jcoll-sendrecv-x" + pairs,
                        bytes, seconds[0] * 1e6, bytes * pairs / seconds[0] / 1e9);
            }
            pairsOfBuffers.forEach(Layout.Arenas::close);
        }
    }

    private static Request group(Communicator comm, List<Buffer> sends, List<Buffer> recvs, long count, int next,
                                 int previous) {
        Group g = comm.group();
        for (int k = 0; k < sends.size(); k++) {
            g.send(sends.get(k), count, next).recv(recvs.get(k), count, previous);
        }
        return g.end();
    }
}
