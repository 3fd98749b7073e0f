import java.nio.*;
public class CS {
    static float[] x = new float[65536], y = new float[65536];
    static void chunk(FloatBuffer a, FloatBuffer b, FloatBuffer d, int n, int c) {
        for (int at = 0; at < n; at += c) {
            int m = Math.min(c, n - at);
            a.get(at, x, 0, m); b.get(at, y, 0, m);
            for (int i = 0; i < m; i++) x[i] += y[i];
            d.put(at, x, 0, m);
        }
    }
    static ByteBuffer buffer(int floats, int offset) {
        return ByteBuffer.allocateDirect(floats * 4 + offset).position(offset).slice().order(ByteOrder.nativeOrder());
    }
    public static void main(String[] args) {
        int[] chunks = java.util.Arrays.stream(System.getProperty("chunks","256,512,1024,2048").split(",")).mapToInt(Integer::parseInt).toArray();
        for (String arg : args) {
        int n = Integer.parseInt(arg);
        // -Doffsets: the three buffers at byte offsets 0, 1088 and 2176 of their allocations, so not cache-set aliased
        boolean offsets = Boolean.getBoolean("offsets");
        ByteBuffer x = buffer(n, 0), y = buffer(n, offsets ? 1088 : 0), d = buffer(n, offsets ? 2176 : 0);
        for (int i=0;i<n;i++){x.putFloat(i*4,i);y.putFloat(i*4,1);}
        FloatBuffer fa = x.asFloatBuffer(), fb = y.asFloatBuffer(), fd = d.asFloatBuffer();
        double[][] r = new double[chunks.length][6];
        for (int rep = 0; rep < 6; rep++) for (int k = 0; k < chunks.length; k++) {
            int iters = Math.max(5, 100_000_000 / n);
            long t = System.nanoTime();
            for (int i = 0; i < iters; i++) chunk(fa, fb, fd, n, chunks[k]);
            r[k][rep] = n*4/((System.nanoTime() - t) / 1e9 / iters)/1e9;
        }
        StringBuilder s = new StringBuilder(n*4/1024 + " KB:");
        for (int k = 0; k < chunks.length; k++) { double[] v = r[k].clone(); java.util.Arrays.sort(v); s.append(String.format("  c%d %.1f", chunks[k], v[3])); }
        System.out.println(s);
        }
    }
}
