package io.jcoll.bench;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.kernels.Reductions;
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
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The reduction kernel the TCP transport runs on every received segment, against the plain loop of
 * {@code ByteBuffer.getFloat}/{@code putFloat} it replaced, on one 512 KB segment of float32 (the default
 * segment) in direct memory, and a plain copy of the same bytes (what the shared-memory transport pays to post or
 * deliver a chunk, the yardstick for the kernel's cost). Run:
 * {@code java -jar benchmarks/target/benchmarks.jar ReductionBenchmark}.
 * Bytes of output per second = 512 KB / the time per operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReductionBenchmark {

    @Param({"131072"})
    public int count;

    private ByteBuffer a;
    private ByteBuffer b;
    private ByteBuffer d;

    @Setup(Level.Trial)
    public void fill() {
        a = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
        b = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
        d = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
        Random r = new Random(1);
        for (int i = 0; i < count; i++) {
            a.putFloat(i * 4, r.nextFloat());
            b.putFloat(i * 4, r.nextFloat());
        }
    }

    /** jcoll's kernel (chunks through primitive arrays, vectorised by the JIT). */
    @Benchmark
    public ByteBuffer jcollKernel() {
        Reductions.combine(DataType.FLOAT32, ReduceOp.SUM, a, b, d, count);
        return d;
    }

    /** One operand's bytes copied into the output: memory traffic without the reduction. */
    @Benchmark
    public ByteBuffer copyOfOneOperand() {
        d.put(0, a, 0, count * 4);
        return d;
    }

    /** The baseline: one absolute get and put per element, as the kernel was before. */
    @Benchmark
    public ByteBuffer byteBufferLoop() {
        for (int i = 0, j = 0; i < count; i++, j += 4) {
            d.putFloat(j, a.getFloat(j) + b.getFloat(j));
        }
        return d;
    }
}
