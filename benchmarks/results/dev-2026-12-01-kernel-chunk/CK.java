import java.nio.*;
import java.util.*;
/** Float32 and float64 sums of k inputs through chunk arrays, at several chunk sizes in bytes (pieces per stream). */
public class CK {
    static float[] fx = new float[8192], fy = new float[8192];
    static double[] dx = new double[4096], dy = new double[4096];
    static void f(FloatBuffer[] in, FloatBuffer d, int n, int c) {
        for (int at = 0; at < n; at += c) {
            int m = Math.min(c, n - at);
            in[0].get(at, fx, 0, m);
            for (int j = 1; j < in.length; j++) { in[j].get(at, fy, 0, m); for (int i = 0; i < m; i++) fx[i] += fy[i]; }
            d.put(at, fx, 0, m);
        }
    }
    static void g(DoubleBuffer[] in, DoubleBuffer d, int n, int c) {
        for (int at = 0; at < n; at += c) {
            int m = Math.min(c, n - at);
            in[0].get(at, dx, 0, m);
            for (int j = 1; j < in.length; j++) { in[j].get(at, dy, 0, m); for (int i = 0; i < m; i++) dx[i] += dy[i]; }
            d.put(at, dx, 0, m);
        }
    }
    static ByteBuffer buf(long bytes) { return ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder()); }
    public static void main(String[] args) {
        int[] chunkBytes = Arrays.stream(System.getProperty("chunks", "2048,3584,8192").split(",")).mapToInt(Integer::parseInt).toArray();
        int k = Integer.getInteger("inputs", 2);
        for (String arg : args) {
            int bytes = Integer.parseInt(arg) * 1024;
            ByteBuffer[] b = new ByteBuffer[k];
            for (int j = 0; j < k; j++) { b[j] = buf(bytes); for (int i = 0; i < bytes / 4; i++) b[j].putFloat(i * 4, i + j); }
            ByteBuffer d = buf(bytes);
            FloatBuffer[] fi = Arrays.stream(b).map(ByteBuffer::asFloatBuffer).toArray(FloatBuffer[]::new);
            DoubleBuffer[] di = Arrays.stream(b).map(ByteBuffer::asDoubleBuffer).toArray(DoubleBuffer[]::new);
            double[][] rf = new double[chunkBytes.length][7], rd = new double[chunkBytes.length][7];
            for (int rep = 0; rep < 7; rep++) for (int c = 0; c < chunkBytes.length; c++) {
                int iters = Math.max(5, 50_000_000 / bytes);
                long t = System.nanoTime();
                for (int i = 0; i < iters; i++) f(fi, d.asFloatBuffer(), bytes / 4, chunkBytes[c] / 4);
                rf[c][rep] = bytes / ((System.nanoTime() - t) / 1e9 / iters) / 1e9;
                t = System.nanoTime();
                for (int i = 0; i < iters; i++) g(di, d.asDoubleBuffer(), bytes / 8, chunkBytes[c] / 8);
                rd[c][rep] = bytes / ((System.nanoTime() - t) / 1e9 / iters) / 1e9;
            }
            StringBuilder s = new StringBuilder(String.format("%d inputs of %6d KB, GB/s of output (median of 5 of 7), float32 | float64 by chunk bytes:", k, bytes / 1024));
            for (int c = 0; c < chunkBytes.length; c++) s.append(String.format("  %d %.1f", chunkBytes[c], med(rf[c])));
            s.append("  |");
            for (int c = 0; c < chunkBytes.length; c++) s.append(String.format("  %d %.1f", chunkBytes[c], med(rd[c])));
            System.out.println(s);
        }
    }
    static double med(double[] v) { double[] w = Arrays.copyOfRange(v, 2, v.length); Arrays.sort(w); return w[w.length / 2]; }
}
