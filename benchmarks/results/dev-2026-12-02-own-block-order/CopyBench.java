import java.lang.foreign.*;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;

public class CopyBench {
    public static void main(String[] a) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle memcpy = linker.downcallHandle(linker.defaultLookup().find("memcpy").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG),
                Linker.Option.critical(false));
        int[] sizes = {64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20};
        for (int round = 0; round < 3; round++) {
            for (int size : sizes) {
                ByteBuffer s = ByteBuffer.allocateDirect(size + 4096 * 2).position(16).slice(0, size);
                ByteBuffer d = ByteBuffer.allocateDirect(size + 4096 * 2).position(16).slice(0, size);
                MemorySegment ss = MemorySegment.ofBuffer(s), ds = MemorySegment.ofBuffer(d);
                int iters = (int) Math.max(20, (256L << 20) / size);
                double[] t = new double[3];
                for (int rep = 0; rep < 5; rep++) {
                    for (int m = 0; m < 3; m++) {
                        long t0 = System.nanoTime();
                        for (int i = 0; i < iters; i++) {
                            switch (m) {
                                case 0 -> d.duplicate().put(s.duplicate());
                                case 1 -> MemorySegment.copy(ss, 0, ds, 0, size);
                                default -> { MemorySegment r = (MemorySegment) memcpy.invokeExact(ds, ss, (long) size); }
                            }
                        }
                        double gbs = (double) size * iters / (System.nanoTime() - t0);
                        if (rep > 0) t[m] = Math.max(t[m], gbs);
                    }
                }
                System.out.printf("round %d %9d B: put %6.2f  segcopy %6.2f  memcpy %6.2f GB/s%n", round, size, t[0], t[1], t[2]);
            }
        }
    }
}
