package io.jcoll.bench;

import io.jcoll.Communicator;
import io.jcoll.Jcoll;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;

import java.time.Duration;
import java.util.List;

/**
 * A failure drill on any transport: every rank runs AllReduce on 64 MB
 * (device memory under NCCL) in a loop, and rank VICTIM halts mid-way, as a
 * SIGKILL would leave it. Each survivor prints what it caught and how long it
 * took. Run: {@code jcoll launch -n N -- io.jcoll.bench.FailureDrill VICTIM}.
 * With {@code cut}, rank 1 shuts down every connected socket of its own process 50 ms in
 * (as a reset connection would leave them) and keeps running; {@code cut-all} shuts down its
 * listening sockets too.
 * With {@code mismatch}, no rank halts: rank 1 calls broadcast where the others
 * call AllReduce, which NCCL itself cannot notice ({@code JCOLL_DEBUG=check} does).
 * With {@code abort}, rank 1 calls {@code comm.abort(reason)} from another thread 50 ms in; with
 * {@code abort-child} the loop runs on a sub-communicator of every rank and rank 1 aborts the parent, which must end
 * the child's calls too.
 */
public final class FailureDrill {

    private FailureDrill() {
    }

    public static void main(String[] args) {
        // "external": no rank halts by itself; a script signals one (SIGKILL, SIGSTOP) and reads the times
        boolean external = args.length > 0 && args[0].equals("external");
        boolean mismatch = args.length > 0 && args[0].equals("mismatch");
        boolean cut = args.length > 0 && args[0].startsWith("cut");
        boolean listenersToo = args.length > 0 && args[0].equals("cut-all");
        boolean abort = args.length > 0 && args[0].startsWith("abort");
        boolean child = args.length > 0 && args[0].equals("abort-child");
        int victim = external || mismatch || cut || abort ? -1 : args.length > 0 ? Integer.parseInt(args[0]) : 1;
        Perf.becomeRanks(2, FailureDrill.class, List.of(args.length > 0 ? args[0] : Integer.toString(victim)),
                Duration.ofSeconds(120));
        try (Communicator parent = Jcoll.fromEnvironment();
             Communicator comm = child ? parent.split(0, parent.rank()).orElseThrow() : parent) {
            boolean device = comm.transport().name().equals("nccl");
            Layout.Arenas arenas = Perf.arenas(comm, 64 << 20, io.jcoll.DataType.FLOAT32, device);
            Layout l = Layout.of(Collective.ALLREDUCE, arenas, io.jcoll.DataType.FLOAT32, 16 << 20, comm.rank(),
                    comm.size(), true);
            comm.allReduce(l.send(), l.recv(), l.count(), ReduceOp.SUM);
            System.out.println("rank " + comm.rank() + " over " + comm.transport().name() + ": all in; "
                    + (external ? "waiting for a signal" : "rank " + victim + " halts in 50 ms") + "; timeout "
                    + comm.timeout().toSeconds() + " s; IN pid=" + ProcessHandle.current().pid());
            if (cut && comm.rank() == 1) {
                fiftyMillisIn(() -> System.out.println("rank 1 shut down its " + (listenersToo ? "" : "connected ")
                        + "sockets: " + Sockets.shutDown(listenersToo) + " at=" + System.currentTimeMillis()));
            }
            if (abort && comm.rank() == 1) {
                fiftyMillisIn(() -> {
                    System.out.println("rank 1 aborts " + (child ? "the parent" : "its communicator") + " at="
                            + System.currentTimeMillis());
                    parent.abort("the drill's rank 1 gave up");
                });
            }
            if (comm.rank() == victim) {
                fiftyMillisIn(() -> Runtime.getRuntime().halt(42));
            }
            long start = System.nanoTime();
            try {
                for (int i = 0; i < (mismatch ? 20 : 100_000); i++) {
                    if (mismatch && comm.rank() == 1) {
                        comm.broadcast(l.send(), l.recv(), l.count(), 0);
                    } else {
                        comm.allReduce(l.send(), l.recv(), l.count(), ReduceOp.SUM);
                    }
                    if (mismatch) {
                        comm.barrier(); // settles the call: a mismatch that slipped through shows up here at the latest
                    }
                }
                System.out.println(mismatch ? "no failure seen: 20 mismatched calls completed, their results silently wrong"
                        : "no failure seen");
            } catch (JcollException e) {
                // one write of the whole line: printf writes its pieces one by one, and under mpirun two ranks'
                // pieces interleaved in the merged output (seen on JDK 25), so that neither line could be read
                System.out.println(String.format("CAUGHT %s peer=%d after %.2f s at=%d: %s", e.getClass().getSimpleName(),
                        e.peer(), (System.nanoTime() - start) / 1e9, System.currentTimeMillis(), e.getMessage()));
                if (abort && comm.rank() == 1) {
                    // alive 3 s more: a peer that learns sooner learned of the abort, not of this process's end
                    sleepQuietly(3000);
                }
                System.exit(7);
            }
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs {@code fault} on its own thread 50 ms from now, while the ranks are in their AllReduce loop. */
    private static void fiftyMillisIn(Runnable fault) {
        new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            fault.run();
        }).start();
    }
}
