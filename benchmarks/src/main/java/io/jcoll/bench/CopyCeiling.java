package io.jcoll.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The host's memory-copy ceiling, the bound for any shared-memory collective: {@code T} threads each copy between
 * two buffers of their own, far larger than the caches, for a fixed time; the figure is bytes copied per second,
 * all threads together (each byte copied is read once and written once). Shared-memory collectives move every
 * byte through at least one such copy (Open MPI's single-copy path) or two (a copy into the shared segment and
 * one out), so a collective's bus bandwidth over this ceiling says how much of the machine it uses.
 *
 * <p>{@code java -cp benchmarks.jar io.jcoll.bench.CopyCeiling [THREADS...] [--bytes B] [--seconds S]}; prints one
 * CSV line per thread count: {@code threads,bytes_per_thread,gb_per_s}.
 */
public final class CopyCeiling {

    private CopyCeiling() {
    }

    public static void main(String[] args) throws Exception {
        List<Integer> threads = new ArrayList<>();
        long bytes = 256L << 20;
        double seconds = 2;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--bytes" -> bytes = io.jcoll.spi.Settings.parseBytes(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                default -> threads.add(Integer.parseInt(args[i]));
            }
        }
        if (threads.isEmpty()) {
            int cores = Runtime.getRuntime().availableProcessors();
            for (int t = 1; t <= cores; t *= 2) {
                threads.add(t);
            }
        }
        System.out.println("threads,bytes_per_thread,gb_per_s");
        for (int t : threads) {
            measure(t, (int) Math.min(bytes, Integer.MAX_VALUE - 8), seconds / 4); // warm-up: the copy loop compiled
            System.out.printf("%d,%d,%.2f%n", t, bytes, measure(t, (int) Math.min(bytes, Integer.MAX_VALUE - 8),
                    seconds));
        }
    }

    /** Bytes copied per second (GB/s) by {@code threads} threads for about {@code seconds}. */
    private static double measure(int threads, int bytes, double seconds) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        AtomicLong copied = new AtomicLong();
        long[] window = new long[2];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                ByteBuffer from = ByteBuffer.allocateDirect(bytes);
                ByteBuffer to = ByteBuffer.allocateDirect(bytes);
                from.put(0, new byte[Math.min(bytes, 1 << 20)]); // touched: no first-touch faults while timing
                to.put(0, from, 0, bytes);
                try {
                    start.await();
                    start.await(); // the clock is read between the two
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                long done = 0;
                while (System.nanoTime() < window[1]) {
                    to.put(0, from, 0, bytes);
                    done += bytes;
                }
                copied.addAndGet(done);
            }, "copy-" + t);
            w.start();
            workers.add(w);
        }
        start.await();
        window[0] = System.nanoTime();
        window[1] = window[0] + (long) (seconds * 1e9);
        start.await();
        for (Thread w : workers) {
            w.join();
        }
        long elapsed = System.nanoTime() - window[0];
        return copied.get() / (elapsed / 1e9) / 1e9;
    }
}
