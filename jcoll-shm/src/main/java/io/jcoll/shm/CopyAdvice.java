package io.jcoll.shm;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * Advice on how this JVM copies memory, for the warnings of a communicator's network report. Every copy through
 * the slots is a {@code ByteBuffer.put} (or an array's copy), which HotSpot makes in its arraycopy stub. On x86
 * CPUs with AVX-512, where the JIT's vectors are 64 bytes by default, the stub moves copies of 4 KB and more with
 * 64-byte load/store loops; with {@code -XX:MaxVectorSize=32} it moves them with {@code rep movs}. On the AMD Zen 5
 * cores of the development VM, a two-process hand-off through slots in lock step took about twice as long when its
 * copies into the slots (stores into lines the peer's CPU had just read) were loops of any width rather than
 * {@code rep movs}, in C and in Java alike; the slots' two-rank AllGather took 2.1-5.6x Open MPI's time by default
 * and 1.0-1.5x with the option, their AllReduce 1.6-1.9x and 1.1-1.4x (benchmarks/RESULTS.md). On the GPU host's
 * Intel cores the option moved nothing beyond the noise. It also caps the JIT's vectors in the user's own code at
 * 32 bytes, so it is advice, never set.
 */
final class CopyAdvice {

    private static final Optional<String> THIS_JVM = thisJvm();

    private CopyAdvice() {
    }

    /** The advice for this JVM on this CPU, if any (worked out once a JVM). */
    static Optional<String> forThisJvm() {
        return THIS_JVM;
    }

    private static Optional<String> thisJvm() {
        String arch = System.getProperty("os.arch"), vendor = cpuVendor();
        // the management beans load only where the answer can be advice
        return onAmdX86(arch, vendor) ? advise(arch, vendor, maxVectorSize()) : Optional.empty();
    }

    private static boolean onAmdX86(String arch, String cpuVendor) {
        return ("amd64".equals(arch) || "x86_64".equals(arch)) && "AuthenticAMD".equals(cpuVendor);
    }

    /**
     * The advice for a JVM on an architecture and CPU.
     *
     * @param arch          the JVM's {@code os.arch}
     * @param cpuVendor     the CPU's vendor as Linux names it ({@code AuthenticAMD}, {@code GenuineIntel}), or null
     * @param maxVectorSize HotSpot's {@code MaxVectorSize}, empty where the JVM does not say
     * @return what to do, where this JVM copies with the loops that are slow on AMD's cores
     */
    static Optional<String> advise(String arch, String cpuVendor, OptionalLong maxVectorSize) {
        if (!onAmdX86(arch, cpuVendor) || maxVectorSize.isEmpty() || maxVectorSize.getAsLong() < 64) {
            return Optional.empty();
        }
        return Optional.of("this JVM copies 4 KB and more with " + maxVectorSize.getAsLong() + "-byte vector loops "
                + "(HotSpot's MaxVectorSize on an AMD CPU with AVX-512), with which a hand-off through shared slots "
                + "took about twice rep movs's time on AMD Zen 5 cores; there, given -XX:MaxVectorSize=32 (in "
                + "JCOLL_JAVA_OPTS under jcoll launch), HotSpot copied with rep movs and the slots' AllGather took "
                + "1.0-1.5x Open MPI's time where the defaults took 2.1-5.6x, but the option also caps the JIT's "
                + "vectors in your own code at 32 bytes (docs/transports.md)");
    }

    /** The first {@code vendor_id} of /proc/cpuinfo, or null where there is none to read. */
    private static String cpuVendor() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith("vendor_id"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst().orElse(null);
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }

    /** HotSpot's {@code MaxVectorSize}; empty on a JVM that has no such option or no jdk.management module. */
    private static OptionalLong maxVectorSize() {
        try {
            HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return hotSpot == null ? OptionalLong.empty()
                    : OptionalLong.of(Long.parseLong(hotSpot.getVMOption("MaxVectorSize").getValue()));
        } catch (RuntimeException | LinkageError e) {
            return OptionalLong.empty();
        }
    }
}
