import java.nio.*;
import java.lang.foreign.*;
import java.lang.reflect.*;
import jdk.incubator.vector.*;
/** The whole all-reduce's reduction at 8 MB: own input (main memory) + a 128 KB scratch (cache) -> output (main memory), 128 KB at a time. */
public class WR {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    static void vec(MemorySegment a, MemorySegment b, MemorySegment d, int n) {
        long bound = S.loopBound(n); long i = 0; ByteOrder o = ByteOrder.nativeOrder();
        for (; i < bound; i += S.length()) FloatVector.fromMemorySegment(S, a, i * 4, o).add(FloatVector.fromMemorySegment(S, b, i * 4, o)).intoMemorySegment(d, i * 4, o);
        for (; i < n; i++) d.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, a.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i) + b.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i));
    }
    public static void main(String[] args) throws Exception {
        int bytes = Integer.parseInt(args[0]) << 10, chunk = 128 << 10;
        ByteBuffer own = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder()), out = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder()), scratch = ByteBuffer.allocateDirect(chunk).order(ByteOrder.nativeOrder());
        for (int i = 0; i < bytes / 4; i++) own.putFloat(i * 4, i);
        Method m = Class.forName("io.jcoll.kernels.Reductions").getMethod("combineAll", Class.forName("io.jcoll.DataType"), Class.forName("io.jcoll.ReduceOp"), ByteBuffer[].class, ByteBuffer.class, int.class);
        Object f32 = Class.forName("io.jcoll.DataType").getField("FLOAT32").get(null), sum = Class.forName("io.jcoll.ReduceOp").getField("SUM").get(null);
        MemorySegment so = MemorySegment.ofBuffer(own), ss = MemorySegment.ofBuffer(scratch), sd = MemorySegment.ofBuffer(out);
        for (int rep = 0; rep < 8; rep++) {
            int iters = Math.max(5, 400_000_000 / bytes);
            long t = System.nanoTime();
            for (int k = 0; k < iters; k++) for (int at = 0; at < bytes; at += chunk) m.invoke(null, f32, sum, new ByteBuffer[] {own.slice(at, chunk).order(ByteOrder.nativeOrder()), scratch}, out.slice(at, chunk).order(ByteOrder.nativeOrder()), chunk / 4);
            double jc = (System.nanoTime() - t) / 1e3 / iters;
            t = System.nanoTime();
            for (int k = 0; k < iters; k++) for (int at = 0; at < bytes; at += chunk) vec(so.asSlice(at, chunk), ss, sd.asSlice(at, chunk), chunk / 4);
            double vc = (System.nanoTime() - t) / 1e3 / iters;
            System.out.printf("%d KB: jcoll kernel %.0f us (%.1f GB/s), vector %.0f us (%.1f GB/s)%n", bytes >> 10, jc, bytes / jc / 1e3, vc, bytes / vc / 1e3);
        }
    }
}
