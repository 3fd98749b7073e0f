import java.nio.*;
public class CP {
    public static void main(String[] a) {
        int bytes = 64 << 20;
        ByteBuffer src = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
        FloatBuffer f = src.asFloatBuffer();
        float[] x = new float[8192];
        int[] pieces = {512, 896, 1008, 1024, 1040, 2048};
        for (int rep = 0; rep < 4; rep++) {
            StringBuilder s = new StringBuilder("single stream DRAM->array, GB/s by piece bytes:");
            for (int p : pieces) {
                long t = System.nanoTime();
                for (int k = 0; k < 3; k++) for (int at = 0; at + p <= bytes / 4; at += p) f.get(at, x, 0, p);
                s.append(String.format("  %d %.1f", p * 4, 3.0 * bytes / (System.nanoTime() - t)));
            }
            System.out.println(s);
        }
    }
}
