/*
 * cma_floor.c's "broadcast" (in place) written in Java: the same meet-read-meet call, from two JVMs, through the
 * FFM API, on the buffers jcoll's benchmark uses (ByteBuffer.allocateDirect) or page-aligned ones. It says whether
 * jcoll's reading path's few per cent above cma_floor.c come from the JVM and its buffers (this program is as slow)
 * or from jcoll's call (this program is as fast as the C one); and, with "split", what the root, idle in an in-place
 * broadcast, gains the call by writing the first half (whole pages) into the reader's buffer with process_vm_writev
 * while the reader reads the rest. Two processes on one host, each started with its role:
 *
 *   java --enable-native-access=ALL-UNNAMED JavaCmaFloor.java ROLE FILE MIN MAX FACTOR WARMUP CALLS BLOCKS BUFFERS CHUNK [split]
 *
 * ROLE 0 is the root, 1 the reader; FILE a path both can map (created by either); BUFFERS "direct" or "aligned";
 * CHUNK the bytes of one process_vm_readv (0: the whole message in one). Prints, per size, the median over the
 * blocks of the slower rank's mean time per call, in us, and checks every element the reader got once per size.
 * JDK 22 or later.
 */
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

public class JavaCmaFloor {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle READV = LINKER.downcallHandle(
            LINKER.defaultLookup().find("process_vm_readv").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle WRITEV = LINKER.downcallHandle(
            LINKER.defaultLookup().find("process_vm_writev").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final int LINE = 64;
    private static boolean split;
    private static int readerPid;
    private static long readerAddress;

    private static MemorySegment shared;
    private static int role;
    private static long callsMade;

    private static long word(int at) {
        return shared.get(ValueLayout.JAVA_LONG, at);
    }

    /** Bumps this rank's counter and spins until the other's has reached it, as cma_floor.c's meet(). */
    private static void meet() {
        long target = ++callsMade;
        MemorySegment mine = shared.asSlice((long) role * LINE, 8);
        MemorySegment theirs = shared.asSlice((long) (1 - role) * LINE, 8);
        ValueLayout.JAVA_LONG.varHandle().setRelease(mine, 0L, target);
        while ((long) ValueLayout.JAVA_LONG.varHandle().getAcquire(theirs, 0L) < target) {
            Thread.onSpinWait();
        }
    }

    public static void main(String[] args) throws Throwable {
        role = Integer.parseInt(args[0]);
        Path file = Path.of(args[1]);
        long min = Long.parseLong(args[2]), max = Long.parseLong(args[3]), factor = Long.parseLong(args[4]);
        int warmup = Integer.parseInt(args[5]), calls = Integer.parseInt(args[6]), blocks = Integer.parseInt(args[7]);
        boolean aligned = args[8].equals("aligned");
        long chunkBytes = Long.parseLong(args[9]);
        split = args.length > 10 && args[10].equals("split");
        Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            shared = channel.map(FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
        }
        ByteBuffer buffer = aligned
                ? arena.allocate(max, 4096).asByteBuffer().order(ByteOrder.nativeOrder())
                : ByteBuffer.allocateDirect((int) max).order(ByteOrder.nativeOrder());
        MemorySegment local = MemorySegment.ofBuffer(buffer);
        for (long i = 0; i < max / 4; i++) { // written: pages never written are the kernel's one zero page
            local.setAtIndex(ValueLayout.JAVA_FLOAT, i, role == 0 ? i % 7 : -1);
        }
        shared.set(ValueLayout.JAVA_LONG, 128 + 8 * role, ProcessHandle.current().pid());
        shared.set(ValueLayout.JAVA_LONG, 192 + 8 * role, local.address());
        meet();
        int rootPid = (int) word(128);
        long rootAddress = word(192);
        readerPid = (int) word(136);
        readerAddress = word(200);
        MemorySegment iovecs = arena.allocate(32, 8);
        if (role == 0) {
            System.out.printf("# JavaCmaFloor broadcast, %s buffers, chunk %s, %d blocks of %d calls after %d;"
                    + " times in us%n", aligned ? "page-aligned" : "allocateDirect", chunkBytes == 0 ? "whole" : chunkBytes,
                    blocks, calls, warmup);
        }
        for (long bytes = min; bytes <= max; bytes *= factor) {
            long chunk = chunkBytes == 0 ? bytes : Math.min(chunkBytes, bytes);
            for (int i = 0; i < warmup; i++) {
                call(rootPid, rootAddress, local, bytes, chunk, iovecs);
            }
            if (role == 1) {
                for (long i = 0; i < bytes / 4; i++) {
                    if (local.getAtIndex(ValueLayout.JAVA_FLOAT, i) != i % 7) {
                        throw new IllegalStateException("element " + i + " wrong at " + bytes + " bytes");
                    }
                }
            }
            double[] times = new double[blocks];
            for (int b = 0; b < blocks; b++) {
                meet();
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    call(rootPid, rootAddress, local, bytes, chunk, iovecs);
                }
                double mean = (System.nanoTime() - start) / 1e3 / calls;
                shared.set(ValueLayout.JAVA_DOUBLE, 256 + 8 * role, mean);
                meet();
                times[b] = Math.max(mean, shared.get(ValueLayout.JAVA_DOUBLE, 256 + 8 * (1 - role)));
                meet(); // both have read the other's time before the next block writes its own
            }
            Arrays.sort(times);
            if (role == 0) {
                System.out.printf("%10d %10.2f%n", bytes, times[blocks / 2]);
            }
        }
        Files.deleteIfExists(file);
    }

    private static void call(int rootPid, long rootAddress, MemorySegment local, long bytes, long chunk,
            MemorySegment iovecs) throws Throwable {
        meet();
        long from = split ? bytes / 2 / 4096 * 4096 : 0;
        if (role == 0 && split) {
            iovecs.set(ValueLayout.JAVA_LONG, 0, rootAddress);
            iovecs.set(ValueLayout.JAVA_LONG, 8, from);
            iovecs.set(ValueLayout.JAVA_LONG, 16, readerAddress);
            iovecs.set(ValueLayout.JAVA_LONG, 24, from);
            long put = from == 0 ? 0 : (long) WRITEV.invokeExact(readerPid, iovecs, 1L, iovecs.asSlice(16), 1L, 0L);
            if (put != from) {
                throw new IOException("process_vm_writev copied " + put + " of " + from);
            }
        }
        if (role == 1) {
            for (long at = from; at < bytes; at += chunk) {
                long length = Math.min(chunk, bytes - at);
                iovecs.set(ValueLayout.JAVA_LONG, 0, local.address() + at);
                iovecs.set(ValueLayout.JAVA_LONG, 8, length);
                iovecs.set(ValueLayout.JAVA_LONG, 16, rootAddress + at);
                iovecs.set(ValueLayout.JAVA_LONG, 24, length);
                long got = (long) READV.invokeExact(rootPid, iovecs, 1L, iovecs.asSlice(16), 1L, 0L);
                if (got != length) {
                    throw new IOException("process_vm_readv copied " + got + " of " + length);
                }
            }
        }
        meet();
    }
}
