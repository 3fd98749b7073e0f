import java.nio.*;
import java.lang.reflect.*;
public class KB {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]); // floats
        ByteBuffer x = ByteBuffer.allocateDirect(n*4).order(ByteOrder.nativeOrder());
        ByteBuffer y = ByteBuffer.allocateDirect(n*4).order(ByteOrder.nativeOrder());
        ByteBuffer d = ByteBuffer.allocateDirect(n*4).order(ByteOrder.nativeOrder());
        for (int i=0;i<n;i++){x.putFloat(i*4,i);y.putFloat(i*4,1);}
        Class<?> r = Class.forName("io.jcoll.kernels.Reductions");
        Class<?> dt = Class.forName("io.jcoll.DataType"); Class<?> op = Class.forName("io.jcoll.ReduceOp");
        Method m = r.getMethod("combineAll", dt, op, ByteBuffer[].class, ByteBuffer.class, int.class);
        Object f32 = dt.getField("FLOAT32").get(null), sum = op.getField("SUM").get(null);
        ByteBuffer[] in = {x, y};
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        for (int rep=0; rep<8; rep++) {
            int iters = Math.max(5, 200_000_000 / n);
            long bytes = threads.getCurrentThreadAllocatedBytes();
            long t=System.nanoTime();
            for (int i=0;i<iters;i++) m.invoke(null, f32, sum, in, d, n);
            double s=(System.nanoTime()-t)/1e9/iters;
            double allocated = (threads.getCurrentThreadAllocatedBytes() - bytes) / (double) iters;
            System.out.printf("%d floats: %.1f us, %.2f GB/s of output, %.0f bytes allocated a call%n", n, s*1e6, n*4/s/1e9, allocated);
        }
        // memcpy reference
        for (int rep=0; rep<3; rep++) {
            int iters = Math.max(5, 200_000_000 / n);
            long t=System.nanoTime();
            for (int i=0;i<iters;i++) d.put(0, x, 0, n*4);
            double s=(System.nanoTime()-t)/1e9/iters;
            System.out.printf("copy %d floats: %.1f us, %.2f GB/s%n", n, s*1e6, n*4/s/1e9);
        }
    }
}
