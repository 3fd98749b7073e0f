package io.jcoll.bench;

import io.jcoll.Communicator;
import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code jcoll demo}: the main job on a fresh machine. Four local ranks run
 * AllReduce, AllGather, ReduceScatter, All-to-All and Broadcast at a few sizes,
 * check every result on every rank, and rank 0 prints a table and the
 * transport chosen, with the reason. Exits 0 only if every result was right.
 */
public final class Demo {

    private static final long[] SIZES = {1 << 10, 64 << 10, 1 << 20, 16 << 20};
    private static final int ITERS = 5;

    private Demo() {
    }

    public static void main(String[] argv) {
        Perf.becomeRanks(argv.length >= 2 && argv[0].equals("-n") ? Integer.parseInt(argv[1]) : 4, Demo.class,
                List.of(), Duration.ofSeconds(15));
        boolean allRight;
        try (Communicator comm = Jcoll.fromEnvironment()) {
            allRight = run(comm, comm.rank() == 0 ? System.out : null);
        }
        System.exit(allRight ? 0 : 1);
    }

    static boolean run(Communicator comm, PrintStream out) {
        int n = comm.size();
        if (out != null) {
            out.println("jcoll demo: " + n + " ranks");
            out.println("transport: " + comm.transport().name() + " (" + comm.transport().requested() + ")");
            out.println("  why: " + comm.transport().reason());
            comm.transport().rejected().forEach(r -> out.println("  " + r));
            out.println();
            out.printf(Locale.ROOT, "%-14s %12s %12s %10s %10s  %s%n", "op", "bytes", "time (us)", "algbw GB/s",
                    "busbw GB/s", "verified");
        }
        DataType type = DataType.FLOAT32;
        Layout.Arenas arenas = Perf.arenas(comm, SIZES[SIZES.length - 1], type, comm.transport().name().equals("nccl"));
        boolean allRight = true;
        for (Collective op : Collective.values()) {
            for (long bytes : SIZES) {
                long total = bytes / type.size() / n * n;
                Layout l = Layout.of(op, arenas, type, total, comm.rank(), n, false);
                int root = (int) (bytes % n);
                DataCheck.fill(op, l, type, ReduceOp.SUM, comm.rank(), n, root);
                op.run(comm, l, ReduceOp.SUM, root);
                long[] wrong = {DataCheck.wrong(op, l, type, ReduceOp.SUM, comm.rank(), n, root)};
                comm.barrier();
                long start = System.nanoTime();
                for (int i = 0; i < ITERS; i++) {
                    op.run(comm, l, ReduceOp.SUM, root);
                }
                double[] seconds = {(System.nanoTime() - start) / 1e9 / ITERS};
                comm.allReduce(HostBuffer.of(seconds), ReduceOp.MAX);
                comm.allReduce(HostBuffer.of(wrong), ReduceOp.SUM);
                allRight &= wrong[0] == 0;
                if (out != null) {
                    double algbw = total * type.size() / seconds[0] / 1e9;
                    out.printf(Locale.ROOT, "%-14s %12d %12.1f %10.3f %10.3f  %s%n", op.label(), total * type.size(),
                            seconds[0] * 1e6, algbw, algbw * op.busFactor(n),
                            wrong[0] == 0 ? "yes" : "NO: " + wrong[0] + " wrong elements");
                }
            }
        }
        if (out != null) {
            out.println();
            out.println(allRight ? "all results verified on every rank" : "SOME RESULTS WERE WRONG");
        }
        arenas.close();
        return allRight;
    }
}
