import java.nio.*;
/** Which stream's piece size makes the cliff: reads of R floats, writes of W floats (R a multiple of W). */
public class SP {
    static float[] x = new float[4096], y = new float[4096];
    static void k(FloatBuffer a, FloatBuffer b, FloatBuffer d, int n, int r, int w) {
        for (int at = 0; at < n; at += r) {
            int m = Math.min(r, n - at);
            for (int p = 0; p < m; p += w) { int q = Math.min(w, m - p); a.get(at + p, x, p, q); }
            for (int p = 0; p < m; p += w) { int q = Math.min(w, m - p); b.get(at + p, y, p, q); }
            for (int i = 0; i < m; i++) x[i] += y[i];
            for (int p = 0; p < m; p += w) { int q = Math.min(w, m - p); d.put(at + p, x, p, q); }
        }
    }
    static void kw(FloatBuffer a, FloatBuffer b, FloatBuffer d, int n, int r, int w) { // reads in r, write split in w
        for (int at = 0; at < n; at += r) {
            int m = Math.min(r, n - at);
            a.get(at, x, 0, m); b.get(at, y, 0, m);
            for (int i = 0; i < m; i++) x[i] += y[i];
            for (int p = 0; p < m; p += w) { int q = Math.min(w, m - p); d.put(at + p, x, p, q); }
        }
    }
    static void kr(FloatBuffer a, FloatBuffer b, FloatBuffer d, int n, int r, int w) { // reads split in w, write whole
        for (int at = 0; at < n; at += r) {
            int m = Math.min(r, n - at);
            for (int p = 0; p < m; p += w) { int q = Math.min(w, m - p); a.get(at + p, x, p, q); }
            for (int p = 0; p < m; p += w) { int q = Math.min(w, m - p); b.get(at + p, y, p, q); }
            for (int i = 0; i < m; i++) x[i] += y[i];
            d.put(at, x, 0, m);
        }
    }
    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]) * 256;
        ByteBuffer[] b = new ByteBuffer[3];
        for (int j = 0; j < 3; j++) { b[j] = ByteBuffer.allocateDirect(n * 4).order(ByteOrder.nativeOrder()); for (int i = 0; i < n; i++) b[j].putFloat(i * 4, i + j); }
        FloatBuffer fa = b[0].asFloatBuffer(), fb = b[1].asFloatBuffer(), fd = b[2].asFloatBuffer();
        String[] names = {"r896/w896", "r2048/w2048", "r2048 write split 896", "r2048 reads split 896", "r4096 write split 896"};
        for (int rep = 0; rep < 5; rep++) {
            StringBuilder s = new StringBuilder(n / 256 + " KB:");
            for (int v = 0; v < names.length; v++) {
                int iters = Math.max(5, 100_000_000 / (n * 4));
                long t = System.nanoTime();
                for (int i = 0; i < iters; i++) switch (v) {
                    case 0 -> k(fa, fb, fd, n, 896, 896);
                    case 1 -> k(fa, fb, fd, n, 2048, 2048);
                    case 2 -> kw(fa, fb, fd, n, 2048, 896);
                    case 3 -> kr(fa, fb, fd, n, 2048, 896);
                    default -> kw(fa, fb, fd, n, 4096, 896);
                }
                s.append(String.format("  %s %.1f", names[v], n * 4.0 / ((System.nanoTime() - t) / (double) iters)));
            }
            if (rep >= 2) System.out.println(s);
        }
    }
}
