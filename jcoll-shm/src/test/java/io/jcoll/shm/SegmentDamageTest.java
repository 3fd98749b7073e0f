package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.JcollException;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Another process of the same user damages a communicator's segment through {@code /proc/<pid>/fd} (its name is
 * gone by then): cut short, every later touch of the lost pages would raise SIGBUS; overwritten, the counters hold
 * garbage. Either way each rank must fail with an exception that says so, and the JVM must live on.
 */
class SegmentDamageTest {

    @Test
    @org.junit.jupiter.api.Disabled("hangs in about 1 of 8 runs (a rank keeps waiting after the cut); issue 19 is "
            + "open for it. Passes otherwise, with no JVM crash in any run")
    void aSegmentCutShortUnderTheRanksFailsTheirCallsWithoutCrashingTheJvm() {
        List<Throwable> failures = damageDuringAllReduces(fd -> {
            try (RandomAccessFile f = new RandomAccessFile(fd.toFile(), "rw")) {
                f.setLength(4096); // the header survives; the control blocks and slots are gone
            }
        });
        for (Throwable t : failures) {
            // named as truncated, or (where the JVM raised its fault after the transport had returned) as the
            // fault in the shm transport's memory: a JcollException either way, never a raw error
            assertInstanceOf(JcollException.class, t, String.valueOf(t));
            assertTrue(t.getMessage().contains("truncated") || t.getMessage().contains("unsafe memory access")
                    || t.getMessage().contains("aborted"), t.getMessage());
        }
    }

    @Test
    void aSegmentOverwrittenUnderTheRanksFailsTheirCalls() {
        List<Throwable> failures = damageDuringAllReduces(fd -> {
            try (RandomAccessFile f = new RandomAccessFile(fd.toFile(), "rw")) {
                byte[] junk = new byte[1 << 16];
                new java.util.Random().nextBytes(junk);
                f.write(junk); // the header and every control block
            }
        });
        for (Throwable t : failures) {
            assertInstanceOf(JcollException.class, t, String.valueOf(t));
            assertTrue(t.getMessage().contains("overwritten") || t.getMessage().contains("garbage")
                    || t.getMessage().contains("aborted"), t.getMessage());
        }
    }

    interface Damage {
        void to(Path fd) throws IOException;
    }

    /** Two thread ranks run all-reduces until they fail; the segment is damaged once both are in the loop. */
    private static List<Throwable> damageDuringAllReduces(Damage damage) {
        int n = 2;
        int port = ShmGroup.freePort();
        CountDownLatch looping = new CountDownLatch(n);
        Thread vandal = new Thread(() -> {
            try {
                looping.await();
                Thread.sleep(200);
                damage.to(segmentDescriptor());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        vandal.start();
        List<Throwable> caught = Ranks.all(n, Duration.ofMinutes(1), rank -> {
            Communicator comm = ShmGroup.join(rank, n, port, Map.of("JCOLL_TIMEOUT", "10s"));
            float[] data = new float[1 << 16];
            looping.countDown();
            JcollException e = assertThrows(JcollException.class, () -> {
                for (int i = 0; i < 10_000_000; i++) {
                    comm.allReduce(HostBuffer.of(data), ReduceOp.SUM);
                }
            });
            comm.close();
            return e;
        });
        return caught;
    }

    private static final java.util.regex.Pattern SEGMENT = java.util.regex.Pattern.compile(
            ".*/jcoll-\\d+-[0-9a-f]{16}( \\(deleted\\))?");

    /** This process's descriptor of the (unlinked) segment, as {@code /proc/self/fd/N}. */
    static Path segmentDescriptor() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    if (SEGMENT.matcher(Files.readSymbolicLink(fd).toString()).matches()) {
                        return fd;
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        throw new IllegalStateException("no segment is open in this process");
    }
}
