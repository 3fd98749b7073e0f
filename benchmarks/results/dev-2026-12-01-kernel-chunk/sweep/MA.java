import java.nio.*;
import java.lang.foreign.*;
public class MA {
    static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    static float[] x = new float[896];
    // loads from two native segments, stores into a heap array (no aliasing possible), then one bulk copy out
    static void seg(MemorySegment a, MemorySegment b, MemorySegment d, int n) {
        for (int at = 0; at < n; at += 896) {
            int m = Math.min(896, n - at);
            MemorySegment sa = a.asSlice(at * 4L), sb = b.asSlice(at * 4L);
            for (int i = 0; i < m; i++) x[i] = sa.getAtIndex(F, i) + sb.getAtIndex(F, i);
            MemorySegment.copy(x, 0, d, F, at * 4L, m);
        }
    }
    static float[] y = new float[896];
    static void chunk(FloatBuffer a, FloatBuffer b, FloatBuffer d, int n) {
        for (int at = 0; at < n; at += 896) {
            int m = Math.min(896, n - at);
            a.get(at, x, 0, m); b.get(at, y, 0, m);
            for (int i = 0; i < m; i++) x[i] += y[i];
            d.put(at, x, 0, m);
        }
    }
    public static void main(String[] args) {
        for (String arg : args) {
            int n = Integer.parseInt(arg) * 256;
            ByteBuffer[] b = new ByteBuffer[3];
            for (int j = 0; j < 3; j++) { b[j] = ByteBuffer.allocateDirect(n * 4).order(ByteOrder.nativeOrder()); for (int i = 0; i < n; i++) b[j].putFloat(i * 4, i + j); }
            MemorySegment[] s = {MemorySegment.ofBuffer(b[0]), MemorySegment.ofBuffer(b[1]), MemorySegment.ofBuffer(b[2])};
            for (int rep = 0; rep < 6; rep++) {
                int iters = Math.max(5, 100_000_000 / (n * 4));
                long t = System.nanoTime();
                for (int i = 0; i < iters; i++) seg(s[0], s[1], s[2], n);
                double a1 = n * 4.0 / ((System.nanoTime() - t) / (double) iters);
                t = System.nanoTime();
                for (int i = 0; i < iters; i++) chunk(b[0].asFloatBuffer(), b[1].asFloatBuffer(), b[2].asFloatBuffer(), n);
                double a2 = n * 4.0 / ((System.nanoTime() - t) / (double) iters);
                if (rep >= 3) System.out.printf("%d KB: segment loads into an array %.1f GB/s, chunk kernel %.1f GB/s%n", n / 256, a1, a2);
            }
        }
    }
}
