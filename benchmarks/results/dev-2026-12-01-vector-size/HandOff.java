import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * Two processes hand a two-rank AllGather's halves to each other through ring slots in one shared file, in lock
 * step, as the shared-memory transport's slots do: each rank copies a chunk of its input into its next slot
 * (copy in), publishes it, copies it to its own half of the output, waits for the peer's chunk and copies that
 * out, then frees the peer's slot. Every copy is ByteBuffer.put, so the JVM's arraycopy stub makes it; run it
 * with and without -XX:MaxVectorSize=32 to compare the stub's loops.
 *
 *   java HandOff RANK BYTES SLOT_BYTES SLOTS ITERATIONS FILE     (both ranks at once, the same arguments but RANK)
 *
 * Rank 0 prints the mean and best time of the timed iterations (the first fifth untimed) and checks the output.
 */
public class HandOff {
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    public static void main(String[] args) throws Exception {
        int me = Integer.parseInt(args[0]), peer = 1 - me;
        int bytes = Integer.parseInt(args[1]), slotBytes = Integer.parseInt(args[2]), slots = Integer.parseInt(args[3]);
        int iterations = Integer.parseInt(args[4]);
        Path file = Path.of(args[5]);
        MappedByteBuffer map;
        try (FileChannel channel = FileChannel.open(file, CREATE, READ, WRITE)) {
            map = channel.map(FileChannel.MapMode.READ_WRITE, 0, 4096 + 2L * slots * slotBytes);
        }
        // each rank's counters on their own lines: chunks produced, chunks of the peer consumed, iteration begun
        int produced = 0, consumed = 64, begun = 128;
        int mine = me * 256, theirs = peer * 256;
        // buffers at page offset 16, as paired.sh places them
        ByteBuffer input = ByteBuffer.allocateDirect(bytes + 16).slice(16, bytes);
        ByteBuffer output = ByteBuffer.allocateDirect(2 * bytes + 16).slice(16, 2 * bytes);
        for (int i = 0; i < bytes; i++) input.put(i, (byte) (me + 1));
        int mySlots = 4096 + me * slots * slotBytes, peerSlots = 4096 + peer * slots * slotBytes;
        long chunks = (bytes + slotBytes - 1) / slotBytes, base = 0, best = Long.MAX_VALUE;
        double sum = 0;
        int timed = 0;
        for (int it = 0; it < iterations; it++) {
            LONG.setRelease(map, mine + begun, (long) it + 1);
            while ((long) LONG.getAcquire(map, theirs + begun) < it + 1) Thread.onSpinWait();
            long start = System.nanoTime();
            for (long k = 0; k < chunks; k++) {
                int n = (int) Math.min(slotBytes, bytes - k * slotBytes);
                int at = (int) (k * slotBytes), slot = (int) ((base + k) % slots) * slotBytes;
                while ((long) LONG.getAcquire(map, theirs + consumed) < base + k - slots + 1) Thread.onSpinWait();
                map.put(mySlots + slot, input, at, n);
                LONG.setRelease(map, mine + produced, base + k + 1);
                output.put(me * bytes + at, map, mySlots + slot, n);
                while ((long) LONG.getAcquire(map, theirs + produced) < base + k + 1) Thread.onSpinWait();
                output.put(peer * bytes + at, map, peerSlots + slot, n);
                LONG.setRelease(map, mine + consumed, base + k + 1);
            }
            base += chunks;
            long took = System.nanoTime() - start;
            if (it >= iterations / 5) {
                sum += took;
                best = Math.min(best, took);
                timed++;
            }
        }
        for (int i = 0; i < 2 * bytes; i += 4093) {
            if (output.get(i) != (i < bytes ? 1 : 2)) throw new AssertionError("wrong byte at " + i);
        }
        if (me == 0) {
            System.out.printf("%d B, %d B slots x %d: mean %.1f us, best %.1f us%n", bytes, slotBytes, slots,
                    sum / timed / 1e3, best / 1e3);
        }
    }
}
