import java.nio.*;
import java.lang.foreign.*;
import java.lang.invoke.*;

/**
 * How fast a copy between two direct buffers goes, by ByteBuffer.put, MemorySegment.copy and glibc's memcpy (through
 * the FFM API), at the page offsets PairedMpi's buffers had: whether Java's own copy could be what keeps the
 * single-copy collectives a few per cent behind Open MPI on the development VM (README.md here). JDK 22+:
 * {@code java --enable-native-access=ALL-UNNAMED CopySpeed.java BYTES}; 4 rounds of about 2 GB copied each way.
 */
public class CopySpeed {
  public static void main(String[] a) throws Throwable {
    int n = Integer.parseInt(a[0]);
    ByteBuffer src = ByteBuffer.allocateDirect(n + 4096), dst = ByteBuffer.allocateDirect(n + 4096);
    src = src.slice(3248, n); dst = dst.slice(3264, n);
    MemorySegment s = MemorySegment.ofBuffer(src), d = MemorySegment.ofBuffer(dst);
    Linker l = Linker.nativeLinker();
    MethodHandle memcpy = l.downcallHandle(l.defaultLookup().find("memcpy").get(),
        FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG), Linker.Option.critical(false));
    int iters = Math.max(20, (int)(2_000_000_000L / n));
    for (int round = 0; round < 4; round++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < iters; i++) dst.put(0, src, 0, n);
      long t1 = System.nanoTime();
      for (int i = 0; i < iters; i++) MemorySegment.copy(s, 0, d, 0, n);
      long t2 = System.nanoTime();
      for (int i = 0; i < iters; i++) { MemorySegment r = (MemorySegment) memcpy.invokeExact(d, s, (long) n); }
      long t3 = System.nanoTime();
      System.out.printf("%d B: put %.2f us, segment copy %.2f us, memcpy %.2f us%n", n, (t1-t0)/1e3/iters, (t2-t1)/1e3/iters, (t3-t2)/1e3/iters);
    }
  }
}
