package io.jcoll.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/** Runs ranks as threads of this JVM and collects what each returns or throws. */
public final class Ranks {

    /** One rank's body. */
    public interface Body<T> {
        T run(int rank) throws Exception;
    }

    /** What one rank ended with. */
    public record Outcome<T>(int rank, T value, Throwable error) {
        public T get() {
            if (error != null) {
                throw new AssertionError("rank " + rank + " failed: " + error, error);
            }
            return value;
        }
    }

    private Ranks() {
    }

    /** Runs {@code n} ranks and returns every outcome; fails if any is still running after {@code limit}. */
    public static <T> List<Outcome<T>> outcomes(int n, Duration limit, Body<T> body) {
        ExecutorService pool = Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                final int rank = r;
                futures.add(pool.submit(() -> {
                    Thread.currentThread().setName("rank-" + rank);
                    return body.run(rank);
                }));
            }
            long deadline = System.nanoTime() + limit.toNanos();
            List<Outcome<T>> out = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                try {
                    out.add(new Outcome<>(r, futures.get(r).get(Math.max(0, deadline - System.nanoTime()),
                            TimeUnit.NANOSECONDS), null));
                } catch (ExecutionException e) {
                    out.add(new Outcome<>(r, null, e.getCause()));
                } catch (TimeoutException e) {
                    throw new AssertionError("rank " + r + " still running after " + limit + ": a hang; "
                            + "where the ranks' and jcoll's threads were:" + stacks());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The stacks of this JVM's rank threads and jcoll's own, for a hang's report. */
    private static String stacks() {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, frames) -> {
            if (t.getName().startsWith("rank-") || t.getName().startsWith("jcoll")) {
                b.append("\n\"").append(t.getName()).append("\" ").append(t.getState());
                for (StackTraceElement f : frames) {
                    b.append("\n    at ").append(f);
                }
            }
        });
        return b.toString();
    }

    /**
     * Runs {@code n} ranks, all of which must succeed; returns their values in rank order. Where some fail, every
     * failure is reported, the lowest rank's as the cause and the others' as suppressed: the rank that failed first
     * is often another than rank 0, whose own error then only says that a peer left.
     */
    public static <T> List<T> all(int n, Duration limit, Body<T> body) {
        List<Outcome<T>> outcomes = outcomes(n, limit, body);
        List<Outcome<T>> failed = outcomes.stream().filter(o -> o.error() != null).toList();
        if (!failed.isEmpty()) {
            StringBuilder message = new StringBuilder();
            for (Outcome<T> o : failed) {
                message.append(message.length() == 0 ? "" : "\n").append("rank ").append(o.rank()).append(" failed: ")
                        .append(o.error());
            }
            AssertionError e = new AssertionError(message.toString(), failed.get(0).error());
            failed.stream().skip(1).forEach(o -> e.addSuppressed(o.error()));
            throw e;
        }
        List<T> values = new ArrayList<>();
        for (Outcome<T> o : outcomes) {
            values.add(o.value());
        }
        return values;
    }

    /** Deterministic per-rank seed for a test case. */
    public static long seed(long testCase, int rank) {
        return testCase * 1_000_003L + rank * 7919L + 17;
    }

    public static <T> List<T> each(int n, IntFunction<T> f) {
        List<T> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(f.apply(i));
        }
        return l;
    }
}
