package io.jcoll.bench;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.SharedMemory;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Settings;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * jcoll and Open MPI timed in the same processes, block by block: each block of K calls of jcoll is followed (or,
 * every other block, preceded) by K calls of Open MPI's own collective on the same buffers, so that both meet the
 * same machine. On the development VM the host moves its two CPUs between states that change a loopback or
 * shared-memory call's time by 2-4x for seconds at a time (benchmarks/RESULTS.md, "three states"), for both
 * libraries alike; runs of one system after the other meet different states, pairs of blocks tens of
 * milliseconds apart mostly the same one. The figure is the median of the blocks' ratios.
 *
 * <p>Run under Open MPI's {@code mpirun} (benchmarks/compare/paired.sh): MPI is started here as {@code MPI_Init}
 * starts it, jcoll's communicator is formed over the job's ranks with the transport asked for ({@code tcp} or
 * {@code shm}) through its own rendezvous store on loopback (rank 0's port carried by one {@code MPI_Bcast}), not
 * through MPI, which would need every thread level ({@link OpenMpiCalls#start}), and Open MPI runs on whatever path
 * mpirun gave it (TCP on loopback with {@code --mca btl tcp,self}, shared memory by default). Sizes and calls as
 * {@code mpi_bench.c} makes them: the largest buffer of the call, float32 sums, Broadcast from rank 0 and in place
 * for Open MPI; with {@code --in-place} both systems' calls are in place ({@code MPI_IN_PLACE} for Open MPI), so
 * that both do the same work. A block's time is the slowest rank's mean. After a size's blocks, out of place, one
 * more call of each system is checked against a reference computed here in double precision (rank r's input holds r
 * + i mod 7 at element i): the table's two "wrong" columns count the elements, on any rank, that differ.
 *
 * <pre>
 * mpirun -np 2 java -cp CP io.jcoll.bench.PairedMpi OP [-b 8] [-e 2M] [-f 4] [-w WARMUP] [-k CALLS] [-B BLOCKS]
 *     [--transport tcp|shm] [--jit-warmup CALLS] [--in-place] [--blocks-csv FILE] [--page-offset BYTES]
 * </pre>
 */
public final class PairedMpi {

    private static final int INPUT_PERIOD = 7;
    private static final int PAGE = 4096;
    /** The time a size's untimed calls of each system take at most, in two halves, beyond {@link #MIN_WARMUP}. */
    private static final Duration WARMUP_HALF = Duration.ofMillis(500);
    private static final int MIN_WARMUP = 10;
    /** The settling's whole time at most, over every size of a run (the JIT may never go wholly quiet). */
    private static final Duration SETTLE_LIMIT = Duration.ofSeconds(20);

    private PairedMpi() {
    }

    record Options(Collective op, long min, long max, long factor, int warmup, int calls, int blocks, String transport,
                   int jitWarmup, boolean inPlace, Path blocksCsv, int pageOffset, boolean sharedMemory) {

        static final String USAGE = "usage: PairedMpi OP [-b MIN] [-e MAX] [-f FACTOR] [-w WARMUP] [-k CALLS] "
                + "[-B BLOCKS] [--transport tcp|shm] [--jit-warmup CALLS] [--in-place] [--blocks-csv FILE] "
                + "[--page-offset BYTES] [--shared-memory]\n"
                + "  OP: allreduce, allgather, reducescatter, alltoall, broadcast (mpi_bench.c's); sizes take K, M "
                + "suffixes\n  -w: untimed calls of each system per size (default 200; at most about a second's); "
                + "-k: calls per block (default 50); -B: blocks of each system per size (default 20)\n"
                + "  --page-offset: where both buffers start in their pages, 0-4095 (default: where "
                + "ByteBuffer.allocateDirect puts them)\n"
                + "  --shared-memory: both systems' buffers from io.jcoll.SharedMemory (which jcoll's shm transport "
                + "reads through mappings; Open MPI reads them as any memory)";

        static Options parse(String[] args) {
            if (args.length == 0) {
                throw new IllegalArgumentException("name the operation first");
            }
            Collective op = Collective.parse(args[0]);
            if (!List.of(Collective.ALLREDUCE, Collective.ALLGATHER, Collective.REDUCESCATTER, Collective.ALLTOALL,
                    Collective.BROADCAST).contains(op)) {
                throw new IllegalArgumentException(op.label() + " is not one of mpi_bench.c's operations");
            }
            long min = 8;
            long max = 2 << 20;
            long factor = 4;
            int warmup = 200;
            int calls = 50;
            int blocks = 20;
            int jit = 0;
            String transport = "tcp";
            boolean inPlace = false;
            Path csv = null;
            int pageOffset = -1;
            boolean sharedMemory = false;
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--in-place")) {
                    inPlace = true;
                    continue;
                }
                if (a.equals("--shared-memory")) {
                    sharedMemory = true;
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "-b" -> min = Settings.parseBytes(v);
                    case "-e" -> max = Settings.parseBytes(v);
                    case "-f" -> factor = Long.parseLong(v);
                    case "-w" -> warmup = Integer.parseInt(v);
                    case "-k" -> calls = Integer.parseInt(v);
                    case "-B" -> blocks = Integer.parseInt(v);
                    case "--transport" -> transport = v;
                    case "--jit-warmup" -> jit = Integer.parseInt(v);
                    case "--blocks-csv" -> csv = Path.of(v);
                    case "--page-offset" -> pageOffset = Integer.parseInt(v);
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (min < 4 || max < min || factor < 2 || warmup < 0 || calls < 1 || blocks < 1 || jit < 0
                    || pageOffset < -1 || pageOffset >= PAGE) {
                throw new IllegalArgumentException("sizes from 4 bytes up, -f at least 2, -k and -B at least 1, "
                        + "-w and --jit-warmup not negative, --page-offset 0 to 4095");
            }
            if (max > Integer.MAX_VALUE / 2) {
                throw new IllegalArgumentException("sizes up to 1 GB");
            }
            return new Options(op, min, max, factor, warmup, calls, blocks, transport, jit, inPlace, csv, pageOffset,
                    sharedMemory);
        }
    }

    /** One block pair: each system's time per call (the slowest rank's mean), in microseconds. */
    record Block(long bytes, int index, double jcollMicros, double mpiMicros) {
        double ratio() {
            return jcollMicros / mpiMicros;
        }
    }

    public static void main(String[] args) throws IOException {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("PairedMpi: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        OpenMpiCalls mpi = OpenMpiCalls.start();
        List<Block> all = new ArrayList<>();
        try (Communicator comm = form(mpi, o.transport())) {
            all.addAll(sweep(comm, mpi, o, System.out));
        }
        if (o.blocksCsv() != null && mpi.rank() == 0) {
            List<String> lines = new ArrayList<>(List.of("bytes,block,jcoll_us,mpi_us"));
            for (Block b : all) {
                lines.add(String.format(Locale.ROOT, "%d,%d,%.3f,%.3f", b.bytes(), b.index(), b.jcollMicros(),
                        b.mpiMicros()));
            }
            Files.write(o.blocksCsv(), lines);
        }
        mpi.finish();
    }

    /** jcoll's communicator over MPI's ranks, all on this host, through a rendezvous store at rank 0. */
    private static Communicator form(OpenMpiCalls mpi, String transport) throws IOException {
        int rank = mpi.rank();
        int size = mpi.size();
        int port = 0;
        if (rank == 0) {
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort(); // free now; rank 0's store binds it within milliseconds
            }
        }
        port = mpi.broadcast(port);
        return Jcoll.builder().transport(transport).rank(rank).size(size).localRank(rank).localSize(size)
                .master(InetAddress.getLoopbackAddress().getHostAddress(), port).build();
    }

    static List<Block> sweep(Communicator comm, OpenMpiCalls mpi, Options o, PrintStream out) {
        int n = comm.size();
        boolean report = comm.rank() == 0;
        DataType type = DataType.FLOAT32;
        ByteBuffer a = filled(o.max(), comm.rank(), INPUT_PERIOD, o.pageOffset(), o.sharedMemory());
        ByteBuffer b = filled(o.max(), comm.rank(), 5, o.pageOffset(), o.sharedMemory());
        long sendAt = OpenMpiCalls.address(a);
        long recvAt = OpenMpiCalls.address(b);
        Layout.Arenas arenas = new Layout.Arenas(HostBuffer.of(a, type), HostBuffer.of(b, type));
        if (report) {
            out.printf(Locale.ROOT, "# PairedMpi %s, %d ranks, jcoll over %s%s against Open MPI in the same processes:"
                    + " %d blocks of %d calls per size, %d untimed calls each first; buffers%s at page offsets %d and %d%n",
                    o.op().label(), n, comm.transport().name(), o.inPlace() ? " (in place)" : "", o.blocks(), o.calls(),
                    o.warmup(), o.sharedMemory() ? " (both systems': io.jcoll.SharedMemory)" : "",
                    a.alignmentOffset(0, PAGE), b.alignmentOffset(0, PAGE));
            mpi.callMicros(100_000); // compiled first
            out.printf(Locale.ROOT, "# a call into Open MPI from Java costs %.3f us beyond its own work (a trivial MPI "
                    + "call's mean through the same binding): Open MPI's times below include it%n",
                    mpi.callMicros(1_000_000));
            out.printf("# %10s %12s %12s %10s %22s %7s %7s%n", "bytes", "jcoll (us)", "mpi (us)", "ratio",
                    "ratios (p10-p90)", "wrong", "(mpi)");
        }
        if (o.jitWarmup() > 0) {
            Layout first = layout(o, arenas, o.min(), comm.rank(), n);
            for (int i = 0; i < o.jitWarmup(); i++) {
                o.op().run(comm, first, ReduceOp.SUM, 0);
            }
        }
        List<Block> blocks = new ArrayList<>();
        long settleBy = System.nanoTime() + SETTLE_LIMIT.toNanos();
        for (long bytes = o.min(); bytes <= o.max(); bytes *= o.factor()) {
            long total = total(o.op(), bytes, n);
            if (total < (o.op() == Collective.ALLREDUCE || o.op() == Collective.BROADCAST ? 1 : n)) {
                continue;
            }
            Layout l = layout(o, arenas, bytes, comm.rank(), n);
            List<Block> size = blocksAt(comm, mpi, o, l, sendAt, recvAt, total, settleBy);
            blocks.addAll(size);
            String wrong = o.inPlace() ? "      -       -" : check(comm, mpi, o, l, b, sendAt, recvAt, total);
            if (report) {
                double[] ratios = size.stream().mapToDouble(Block::ratio).sorted().toArray();
                out.printf(Locale.ROOT, "  %10d %12.2f %12.2f %9.2fx %13.2f-%.2fx %s%n", total * 4,
                        ResultRow.median(size.stream().mapToDouble(Block::jcollMicros).toArray()),
                        ResultRow.median(size.stream().mapToDouble(Block::mpiMicros).toArray()),
                        ResultRow.median(ratios),
                        quantile(ratios, 0.1), quantile(ratios, 0.9), wrong);
                out.flush();
            }
        }
        return blocks;
    }

    /**
     * One size: both systems' untimed calls, settled ({@link #settle}), then the blocks, each system's in turn, the
     * order swapped each block.
     */
    private static List<Block> blocksAt(Communicator comm, OpenMpiCalls mpi, Options o, Layout l, long sendAt,
                                        long recvAt, long total, long settleBy) {
        int n = comm.size();
        Runnable jcollCall = () -> o.op().run(comm, l, ReduceOp.SUM, 0);
        Runnable mpiCall = () -> mpi.run(o.op(), sendAt, recvAt, total, n, o.inPlace());
        for (int half = 0; half < 2; half++) { // the JIT meets this size's paths before the quiet wait
            int calls = warmupCalls(comm, mpi, o, l);
            for (int i = 0; i < calls; i++) {
                mpiCall.run();
            }
        }
        settle(jcollCall, mpiCall, mpi, settleBy);
        List<Block> size = new ArrayList<>();
        for (int k = 0; k < o.blocks(); k++) {
            double jcoll;
            double other;
            if (k % 2 == 0) { // neither system always runs right after the other
                jcoll = block(mpi, o, jcollCall);
                other = block(mpi, o, mpiCall);
            } else {
                other = block(mpi, o, mpiCall);
                jcoll = block(mpi, o, jcollCall);
            }
            size.add(new Block(total * 4, k, jcoll, other));
        }
        return size;
    }

    /**
     * One more out-of-place call of each system, its output {@code b} checked on every rank ({@link #wrong}): the
     * two counts of wrong elements, summed over the ranks, for the table. Open MPI's Broadcast sends the root's
     * {@code b}, which jcoll's call has just filled with the root's input.
     */
    private static String check(Communicator comm, OpenMpiCalls mpi, Options o, Layout l, ByteBuffer b, long sendAt,
                                long recvAt, long total) {
        int n = comm.size();
        o.op().run(comm, l, ReduceOp.SUM, 0);
        long jcollWrong = (long) mpi.sum(wrong(o.op(), b, total, comm.rank(), n));
        mpi.run(o.op(), sendAt, recvAt, total, n, false);
        long mpiWrong = (long) mpi.sum(wrong(o.op(), b, total, comm.rank(), n));
        return String.format(Locale.ROOT, "%7d %7d", jcollWrong, mpiWrong);
    }

    /**
     * The elements of this rank's output {@code out} that differ from what {@code op} should leave there, computed
     * in double precision from every rank's input (rank r's element i: r + i mod 7); Broadcast's root is rank 0.
     */
    static int wrong(Collective op, ByteBuffer out, long total, int rank, int n) {
        int block = (int) (total / n);
        int length = switch (op) {
            case REDUCESCATTER -> block;
            case ALLGATHER, ALLTOALL -> block * n;
            default -> (int) total;
        };
        int wrong = 0;
        for (int i = 0; i < length; i++) {
            double expected = switch (op) {
                case ALLREDUCE -> sumOfInputs(n, i);
                case REDUCESCATTER -> sumOfInputs(n, rank * block + i);
                case ALLGATHER -> input(i / block, i % block);
                case ALLTOALL -> input(i / block, rank * block + i % block);
                case BROADCAST -> input(0, i);
                default -> throw new IllegalArgumentException(op.label() + " is not one of mpi_bench.c's operations");
            };
            if (out.getFloat(i * 4) != expected) {
                wrong++;
            }
        }
        return wrong;
    }

    /** Element {@code i} of every rank's input, summed in double precision. */
    private static double sumOfInputs(int n, int i) {
        double sum = 0;
        for (int r = 0; r < n; r++) {
            sum += input(r, i);
        }
        return sum;
    }

    /** Element {@code i} of rank {@code r}'s input. */
    private static float input(int r, int i) {
        return r + i % INPUT_PERIOD;
    }

    /**
     * Bursts of both systems' calls until one leaves the compiler nothing new on every rank
     * ({@link JitQuiet#settle}), by {@code settleBy} at the latest. A warm-up of a few thousand 128 KB calls (10-30 ms)
     * left C2 compiling jcoll's path into the blocks on the 2-vCPU VM: a compilation took a rank's CPU for a
     * millisecond or more, stalling its peer, in 2-9 of 20 blocks where Open MPI's blocks met 0-1 stalls
     * (benchmarks/results/dev-2026-11-30-settled). Each system's part of a burst lasts {@link JitQuiet#BURST}
     * ({@link #runFor}), however fast its first calls were.
     */
    private static void settle(Runnable jcollCall, Runnable mpiCall, OpenMpiCalls mpi, long settleBy) {
        JitQuiet.settle(() -> {
            runFor(JitQuiet.BURST, jcollCall, mpi);
            runFor(JitQuiet.BURST, mpiCall, mpi);
        }, seen -> (long) mpi.max(seen), JitQuiet.MAX_BURSTS, settleBy);
    }

    /**
     * Calls of {@code call} until they have taken {@code duration} on the slowest rank, in runs each sized by the
     * time a call took in the last (every rank gets the slowest rank's time, so all make as many calls). Bursts
     * sized once, from the first calls of a size whose path is new (made before it is compiled), were too short:
     * at 16 KB all-gathers they had ended before C2 queued the single-copy path at its 7,680th call, and C2 then
     * compiled it for half a second into the timed blocks, at 3-10x the call's time
     * (benchmarks/results/dev-2026-12-02-settle-bursts).
     */
    private static void runFor(Duration duration, Runnable call, OpenMpiCalls mpi) {
        long wanted = duration.toNanos();
        double spent = 0;
        int calls = MIN_WARMUP;
        while (spent < wanted) {
            double each = Math.max(1, mpi.max(nanosPerCall(calls, call)));
            spent += each * calls;
            calls = JitQuiet.callsLasting(Duration.ofNanos((long) (wanted - spent)), each);
        }
    }

    /**
     * Half of a size's untimed jcoll calls: {@code -w / 2}, or as many as fit in {@link #WARMUP_HALF} where the
     * size's calls are long (at least {@link #MIN_WARMUP}), timed on the slowest rank, whose time every rank gets,
     * so that all make as many. Returns how many it made, for Open MPI's half.
     */
    private static int warmupCalls(Communicator comm, OpenMpiCalls mpi, Options o, Layout l) {
        int wanted = (o.warmup() + 1) / 2;
        int timed = Math.min(wanted, MIN_WARMUP);
        double each = mpi.max(nanosPerCall(timed, () -> o.op().run(comm, l, ReduceOp.SUM, 0)));
        int calls = timed < MIN_WARMUP ? timed
                : (int) Math.min(wanted, Math.max(MIN_WARMUP, WARMUP_HALF.toNanos() / each));
        for (int made = timed; made < calls; made++) {
            o.op().run(comm, l, ReduceOp.SUM, 0);
        }
        return calls;
    }

    /** One block of {@code -k} calls, started together on every rank: the slowest rank's microseconds a call. */
    private static double block(OpenMpiCalls mpi, Options o, Runnable call) {
        mpi.barrier();
        return mpi.max(nanosPerCall(o.calls(), call) / 1e3);
    }

    /** This rank's mean nanoseconds over {@code calls} calls (0 for none). */
    private static double nanosPerCall(int calls, Runnable call) {
        long start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            call.run();
        }
        return calls == 0 ? 0 : (System.nanoTime() - start) / (double) calls;
    }

    /** Floats of the largest buffer at {@code bytes}, as mpi_bench.c rounds them (whole blocks per rank). */
    static long total(Collective op, long bytes, int n) {
        long total = bytes / 4;
        return op == Collective.ALLREDUCE || op == Collective.BROADCAST ? total : total - total % n;
    }

    private static Layout layout(Options o, Layout.Arenas arenas, long bytes, int rank, int n) {
        return Layout.of(o.op(), arenas, DataType.FLOAT32, total(o.op(), bytes, n), rank, n, o.inPlace());
    }

    /**
     * Direct memory holding data (never the kernel's zero page), as mpi_bench.c fills its buffers; starting at
     * {@code pageOffset} in its page, or where {@code allocateDirect} put it (-1; a shared allocation starts a page);
     * {@code shared}: from {@link SharedMemory}.
     */
    private static ByteBuffer filled(long bytes, int rank, int period, int pageOffset, boolean shared) {
        int length = (int) Math.max(bytes, 64);
        ByteBuffer buffer;
        if (pageOffset < 0) {
            buffer = shared ? SharedMemory.allocate(length) : ByteBuffer.allocateDirect(length);
        } else {
            ByteBuffer whole = shared ? SharedMemory.allocate(length + 2 * PAGE)
                    : ByteBuffer.allocateDirect(length + 2 * PAGE);
            int start = Math.floorMod(pageOffset - whole.alignmentOffset(0, PAGE), PAGE);
            buffer = whole.slice(start, length);
        }
        buffer.order(ByteOrder.nativeOrder());
        for (int i = 0; i + 4 <= buffer.capacity(); i += 4) {
            buffer.putFloat(i, rank + (i / 4) % period);
        }
        return buffer;
    }

    /** The {@code q} quantile of sorted {@code values}, interpolated between neighbours. */
    static double quantile(double[] sorted, double q) {
        double at = q * (sorted.length - 1);
        int low = (int) Math.floor(at);
        int high = Math.min(low + 1, sorted.length - 1);
        return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
    }
}
