package io.jcoll.bench;

import io.jcoll.Communicator;
import io.jcoll.Jcoll;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The demo with ranks as threads of this one JVM instead of processes: one
 * communicator per thread, one GPU each under NCCL (the rank picks its GPU).
 * {@code java -cp ... io.jcoll.bench.ThreadRanks [RANKS]}; exits 0 only if
 * every result on every rank was right.
 */
public final class ThreadRanks {

    private ThreadRanks() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        AtomicBoolean allRight = new AtomicBoolean(true);
        List<Thread> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            final int rank = r;
            Thread t = new Thread(() -> {
                try (Communicator c = Jcoll.builder().rank(rank).size(n).localRank(rank).localSize(n)
                        .master("127.0.0.1", port).token("in-process").build()) {
                    if (!Demo.run(c, rank == 0 ? System.out : null)) {
                        allRight.set(false);
                    }
                } catch (RuntimeException e) {
                    e.printStackTrace();
                    allRight.set(false);
                }
            }, "rank-" + rank);
            ranks.add(t);
            t.start();
        }
        for (Thread t : ranks) {
            t.join();
        }
        System.out.println(allRight.get() ? "thread ranks: all results right" : "thread ranks: FAILED");
        System.exit(allRight.get() ? 0 : 1);
    }
}
