package io.jcoll.kernels;

import io.jcoll.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * The long-run kernels for the four wide types: operands are copied a chunk at a time into primitive arrays
 * (bulk copies, at memory speed), combined there by loops the JIT turns into SIMD instructions, and copied back.
 * Each takes any number of inputs, combined left to right, one chunk of all of them before the next: a reduction
 * of n inputs reads each once and writes its output once, where n - 1 pairwise combines would read and write the
 * running result n - 2 more times (the shared-memory transport reduces every rank's slot at once).
 * A loop of {@code ByteBuffer.getFloat}/{@code putFloat} is not vectorised: on one 512 KB float32 segment it ran
 * at 5.2-5.9 GB/s of output on the development machine, this path at 9.5-10.0 GB/s ({@code ReductionBenchmark},
 * benchmarks/RESULTS.md). Results are bit-identical: each element is still one IEEE or two's-complement operation
 * on the same two operands.
 *
 * <p>Every kernel takes at least two inputs ({@link Reductions#combineAll} copies a lone one). The views of the first
 * two and of the output are locals, the others' in an array: where the JIT compiles a kernel whole, escape analysis
 * can drop those views: float32 sums of two 4-256 KB inputs allocated 16-56 bytes a call (the probe's reflective
 * call's own) where views kept in an array took 152-440; at 4-8 MB the JIT kept them either way (416-440). In two
 * alternated runs on JDK 17 and 25 (chunks of 8 KB then) the sums ran 1.05-1.23x the bytes a second at 4-8 MB,
 * and from a little slower to 1.6x at 4-256 KB (the development VM, 2026-11-30,
 * benchmarks/results/dev-2026-11-30-reduce-scatter-pick/kernel-probe).
 *
 * <p>The chunk arrays are per thread and small ({@link #CHUNK_BYTES} each), so they stay in the first-level cache.
 * The output may be any of the inputs, as a whole (not shifted): a chunk of it is written only once every input's
 * chunk there has been read. One method per type, alike in shape: Java has no generics over primitives, and only a
 * loop over a primitive array of its own type is vectorised.
 */
final class ArrayKernels {

    /**
     * Bytes per chunk, whatever the type: under a 4 KB page. Where the operands stream from main memory, taking
     * each a page or more at a time before turning to the next nearly halved the speed on the development VM's AMD
     * cores: float32 sums of two 8 MB inputs ran at 10.2-10.4 GB/s of output in 8 KB chunks and at 19.2-19.3 in
     * 3.5 KB ones, four inputs of 4-16 MB 1.2-1.9x as fast. Where the operands stay in the caches the smaller chunk
     * costs a little more a chunk: 0.94-0.98x with two inputs of 64 KB, 0.84-1.00x with four (JDK 17 and 25); the
     * GPU host's Intel cores show no cliff, and 0.90-0.95x with eight inputs of 16-128 KB
     * (benchmarks/results/dev-2026-12-01-kernel-chunk). Two chunk arrays are 7 KB, a seventh of the 48 KB
     * first-level data cache of either machine's cores.
     */
    static final int CHUNK_BYTES = 3584;

    /** Elements of each type per chunk. */
    static final int FLOAT_CHUNK = CHUNK_BYTES / Float.BYTES;
    static final int DOUBLE_CHUNK = CHUNK_BYTES / Double.BYTES;
    static final int INT_CHUNK = CHUNK_BYTES / Integer.BYTES;
    static final int LONG_CHUNK = CHUNK_BYTES / Long.BYTES;

    /** Per-thread pairs of chunk arrays, one pair per type, made on a thread's first use of that type. */
    private static final ThreadLocal<float[][]> FLOATS = ThreadLocal.withInitial(() -> new float[2][FLOAT_CHUNK]);
    private static final ThreadLocal<double[][]> DOUBLES = ThreadLocal.withInitial(() -> new double[2][DOUBLE_CHUNK]);
    private static final ThreadLocal<int[][]> INTS = ThreadLocal.withInitial(() -> new int[2][INT_CHUNK]);
    private static final ThreadLocal<long[][]> LONGS = ThreadLocal.withInitial(() -> new long[2][LONG_CHUNK]);

    private ArrayKernels() {
    }

    /** A view of all of {@code b} from index 0, in its byte order, whatever its position and limit. */
    private static ByteBuffer whole(ByteBuffer b) {
        return b.duplicate().order(b.order()).clear();
    }

    static void float32(ReduceOp op, ByteBuffer[] in, ByteBuffer d, int n) {
        FloatBuffer first = whole(in[0]).asFloatBuffer();
        FloatBuffer second = whole(in[1]).asFloatBuffer();
        FloatBuffer[] rest = in.length > 2 ? new FloatBuffer[in.length - 2] : null;
        for (int j = 2; j < in.length; j++) {
            rest[j - 2] = whole(in[j]).asFloatBuffer();
        }
        FloatBuffer to = whole(d).asFloatBuffer();
        float[][] chunks = FLOATS.get();
        float[] x = chunks[0];
        float[] y = chunks[1];
        for (int at = 0; at < n; at += FLOAT_CHUNK) {
            int m = Math.min(FLOAT_CHUNK, n - at);
            first.get(at, x, 0, m);
            second.get(at, y, 0, m);
            combine(op, x, y, m);
            if (rest != null) {
                for (FloatBuffer next : rest) {
                    next.get(at, y, 0, m);
                    combine(op, x, y, m);
                }
            }
            to.put(at, x, 0, m);
        }
    }

    /** {@code x[i] = x[i] op y[i]} for the first {@code m} elements. */
    private static void combine(ReduceOp op, float[] x, float[] y, int m) {
        switch (op) {
            case SUM: case AVG: for (int i = 0; i < m; i++) x[i] = x[i] + y[i]; break;
            case PROD: for (int i = 0; i < m; i++) x[i] = x[i] * y[i]; break;
            case MIN: for (int i = 0; i < m; i++) x[i] = Math.min(x[i], y[i]); break;
            case MAX: for (int i = 0; i < m; i++) x[i] = Math.max(x[i], y[i]); break;
            default: throw new AssertionError(op);
        }
    }

    static void float64(ReduceOp op, ByteBuffer[] in, ByteBuffer d, int n) {
        DoubleBuffer first = whole(in[0]).asDoubleBuffer();
        DoubleBuffer second = whole(in[1]).asDoubleBuffer();
        DoubleBuffer[] rest = in.length > 2 ? new DoubleBuffer[in.length - 2] : null;
        for (int j = 2; j < in.length; j++) {
            rest[j - 2] = whole(in[j]).asDoubleBuffer();
        }
        DoubleBuffer to = whole(d).asDoubleBuffer();
        double[][] chunks = DOUBLES.get();
        double[] x = chunks[0];
        double[] y = chunks[1];
        for (int at = 0; at < n; at += DOUBLE_CHUNK) {
            int m = Math.min(DOUBLE_CHUNK, n - at);
            first.get(at, x, 0, m);
            second.get(at, y, 0, m);
            combine(op, x, y, m);
            if (rest != null) {
                for (DoubleBuffer next : rest) {
                    next.get(at, y, 0, m);
                    combine(op, x, y, m);
                }
            }
            to.put(at, x, 0, m);
        }
    }

    /** {@code x[i] = x[i] op y[i]} for the first {@code m} elements. */
    private static void combine(ReduceOp op, double[] x, double[] y, int m) {
        switch (op) {
            case SUM: case AVG: for (int i = 0; i < m; i++) x[i] = x[i] + y[i]; break;
            case PROD: for (int i = 0; i < m; i++) x[i] = x[i] * y[i]; break;
            case MIN: for (int i = 0; i < m; i++) x[i] = Math.min(x[i], y[i]); break;
            case MAX: for (int i = 0; i < m; i++) x[i] = Math.max(x[i], y[i]); break;
            default: throw new AssertionError(op);
        }
    }

    static void int32(ReduceOp op, ByteBuffer[] in, ByteBuffer d, int n) {
        IntBuffer first = whole(in[0]).asIntBuffer();
        IntBuffer second = whole(in[1]).asIntBuffer();
        IntBuffer[] rest = in.length > 2 ? new IntBuffer[in.length - 2] : null;
        for (int j = 2; j < in.length; j++) {
            rest[j - 2] = whole(in[j]).asIntBuffer();
        }
        IntBuffer to = whole(d).asIntBuffer();
        int[][] chunks = INTS.get();
        int[] x = chunks[0];
        int[] y = chunks[1];
        for (int at = 0; at < n; at += INT_CHUNK) {
            int m = Math.min(INT_CHUNK, n - at);
            first.get(at, x, 0, m);
            second.get(at, y, 0, m);
            combine(op, x, y, m);
            if (rest != null) {
                for (IntBuffer next : rest) {
                    next.get(at, y, 0, m);
                    combine(op, x, y, m);
                }
            }
            to.put(at, x, 0, m);
        }
    }

    /** {@code x[i] = x[i] op y[i]} for the first {@code m} elements. */
    private static void combine(ReduceOp op, int[] x, int[] y, int m) {
        switch (op) {
            case SUM: case AVG: for (int i = 0; i < m; i++) x[i] = x[i] + y[i]; break;
            case PROD: for (int i = 0; i < m; i++) x[i] = x[i] * y[i]; break;
            case MIN: for (int i = 0; i < m; i++) x[i] = Math.min(x[i], y[i]); break;
            case MAX: for (int i = 0; i < m; i++) x[i] = Math.max(x[i], y[i]); break;
            default: throw new AssertionError(op);
        }
    }

    static void int64(ReduceOp op, ByteBuffer[] in, ByteBuffer d, int n) {
        LongBuffer first = whole(in[0]).asLongBuffer();
        LongBuffer second = whole(in[1]).asLongBuffer();
        LongBuffer[] rest = in.length > 2 ? new LongBuffer[in.length - 2] : null;
        for (int j = 2; j < in.length; j++) {
            rest[j - 2] = whole(in[j]).asLongBuffer();
        }
        LongBuffer to = whole(d).asLongBuffer();
        long[][] chunks = LONGS.get();
        long[] x = chunks[0];
        long[] y = chunks[1];
        for (int at = 0; at < n; at += LONG_CHUNK) {
            int m = Math.min(LONG_CHUNK, n - at);
            first.get(at, x, 0, m);
            second.get(at, y, 0, m);
            combine(op, x, y, m);
            if (rest != null) {
                for (LongBuffer next : rest) {
                    next.get(at, y, 0, m);
                    combine(op, x, y, m);
                }
            }
            to.put(at, x, 0, m);
        }
    }

    /** {@code x[i] = x[i] op y[i]} for the first {@code m} elements. */
    private static void combine(ReduceOp op, long[] x, long[] y, int m) {
        switch (op) {
            case SUM: case AVG: for (int i = 0; i < m; i++) x[i] = x[i] + y[i]; break;
            case PROD: for (int i = 0; i < m; i++) x[i] = x[i] * y[i]; break;
            case MIN: for (int i = 0; i < m; i++) x[i] = Math.min(x[i], y[i]); break;
            case MAX: for (int i = 0; i < m; i++) x[i] = Math.max(x[i], y[i]); break;
            default: throw new AssertionError(op);
        }
    }
}
