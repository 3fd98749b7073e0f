import java.lang.foreign.*;
import java.nio.*;
public class MS {
    static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    static void add(MemorySegment x, MemorySegment y, MemorySegment d, long n) {
        for (long i = 0; i < n; i++) d.setAtIndex(F, i, x.getAtIndex(F, i) + y.getAtIndex(F, i));
    }
    static void addInt(MemorySegment x, MemorySegment y, MemorySegment d, int n) {
        for (int i = 0; i < n; i++) d.setAtIndex(F, i, x.getAtIndex(F, i) + y.getAtIndex(F, i));
    }
    public static void main(String[] a) {
        int n = Integer.parseInt(a[0]);
        ByteBuffer bx = ByteBuffer.allocateDirect(n*4).order(ByteOrder.nativeOrder());
        ByteBuffer by = ByteBuffer.allocateDirect(n*4).order(ByteOrder.nativeOrder());
        ByteBuffer bd = ByteBuffer.allocateDirect(n*4).order(ByteOrder.nativeOrder());
        MemorySegment x = MemorySegment.ofBuffer(bx), y = MemorySegment.ofBuffer(by), d = MemorySegment.ofBuffer(bd);
        for (int rep=0; rep<6; rep++) {
            int iters = Math.max(5, 200_000_000 / n);
            long t=System.nanoTime();
            for (int i=0;i<iters;i++) { if ((rep & 1) == 0) add(x, y, d, n); else addInt(x, y, d, n); }
            double s=(System.nanoTime()-t)/1e9/iters;
            System.out.printf("%s %d floats: %.1f us, %.2f GB/s of output%n", (rep&1)==0?"long":"int", n, s*1e6, n*4/s/1e9);
        }
    }
}
