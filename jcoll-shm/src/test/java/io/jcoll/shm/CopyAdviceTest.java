package io.jcoll.shm;

import io.jcoll.Communicator;
import io.jcoll.testing.Commands;
import io.jcoll.testing.Ranks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The advice on HotSpot's copy loops: given only on x86 AMD CPUs where the JIT's vectors are 64 bytes, read from
 * the JVM it runs in (checked against what a child JVM's own flag table says, with and without the option), and
 * carried in a shared-memory communicator's network report.
 */
class CopyAdviceTest {

    @Test
    void onlyAmdX86JvmsWith64ByteVectorsAreAdvised() {
        Optional<String> advice = CopyAdvice.advise("amd64", "AuthenticAMD", OptionalLong.of(64));
        assertTrue(advice.isPresent());
        assertTrue(advice.get().contains("-XX:MaxVectorSize=32") && advice.get().contains("64-byte vector loops"),
                advice.get());
        assertTrue(CopyAdvice.advise("x86_64", "AuthenticAMD", OptionalLong.of(64)).isPresent());
        assertEquals(Optional.empty(), CopyAdvice.advise("amd64", "AuthenticAMD", OptionalLong.of(32)));
        assertEquals(Optional.empty(), CopyAdvice.advise("amd64", "AuthenticAMD", OptionalLong.empty()));
        assertEquals(Optional.empty(), CopyAdvice.advise("amd64", "GenuineIntel", OptionalLong.of(64)));
        assertEquals(Optional.empty(), CopyAdvice.advise("amd64", null, OptionalLong.of(64)));
        assertEquals(Optional.empty(), CopyAdvice.advise("aarch64", "AuthenticAMD", OptionalLong.of(64)));
    }

    /** A child JVM's advice against its own flag table (-XX:+PrintFlagsFinal) and this host's CPU vendor. */
    @Test
    void aJvmIsAdvisedByItsOwnVectorSize() throws Exception {
        boolean amdX86 = List.of("amd64", "x86_64").contains(System.getProperty("os.arch"))
                && Files.readString(Path.of("/proc/cpuinfo")).contains("AuthenticAMD");
        for (List<String> option : List.of(List.<String>of(), List.of("-XX:MaxVectorSize=32"))) {
            long vectorBytes = maxVectorSize(option);
            Commands.Result advised = Commands.run(concat(option, "-cp", System.getProperty("java.class.path"),
                    PrintAdvice.class.getName()), Map.of(), 60);
            assertEquals(0, advised.exit(), advised.output());
            boolean expected = amdX86 && vectorBytes >= 64;
            assertTrue(advised.output().contains(expected ? "ADVICE " : "NONE"),
                    "options " + option + ", MaxVectorSize " + vectorBytes + ", AMD x86 " + amdX86 + ":\n"
                            + advised.output());
        }
    }

    @Test
    void aCommunicatorsNetworkReportCarriesTheAdvice(@TempDir Path dir) {
        int port = ShmGroup.freePort();
        List<List<String>> warnings = Ranks.all(2, Duration.ofMinutes(1), rank -> {
            try (Communicator comm = ShmGroup.builder(rank, 2, port, "shm", Map.of("JCOLL_SHM_DIR", dir.toString()))
                    .build()) {
                assertEquals("shm", comm.transport().name(), comm.transport().toString());
                return comm.network().warnings();
            }
        });
        List<String> advice = CopyAdvice.forThisJvm().stream().toList();
        assertEquals(List.of(advice, advice), warnings);
    }

    private static long maxVectorSize(List<String> option) throws Exception {
        Commands.Result flags = Commands.run(concat(option, "-XX:+PrintFlagsFinal", "-version"), Map.of(), 60);
        assertEquals(0, flags.exit(), flags.output());
        Matcher m = Pattern.compile("\\bMaxVectorSize\\s+= (\\d+)").matcher(flags.output());
        return m.find() ? Long.parseLong(m.group(1)) : 0; // a JVM without the flag copies without vectors
    }

    private static List<String> concat(List<String> option, String... rest) {
        List<String> command = new ArrayList<>(List.of(Commands.java()));
        command.addAll(option);
        command.addAll(List.of(rest));
        return command;
    }

    /** Prints this JVM's advice ({@code ADVICE} and the text) or {@code NONE}. */
    public static final class PrintAdvice {
        public static void main(String[] args) {
            System.out.println(CopyAdvice.forThisJvm().map(a -> "ADVICE " + a).orElse("NONE"));
        }
    }
}
