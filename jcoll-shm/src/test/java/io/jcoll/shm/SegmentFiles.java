package io.jcoll.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** This process's hold on communicators' segments, as the tests that damage them or count leaks look for it. */
final class SegmentFiles {

    /** A segment's file, {@code jcoll-<pid>-<16 hex digits>}, its name unlinked or not. */
    private static final Pattern SEGMENT = Pattern.compile(".*/jcoll-\\d+-[0-9a-f]{16}( \\(deleted\\))?");

    private SegmentFiles() {
    }

    /** This process's open descriptors of segments, as {@code /proc/self/fd/N} by the segment's file. */
    static Map<Path, Path> descriptors() throws IOException {
        Map<Path, Path> found = new HashMap<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (SEGMENT.matcher(target.toString()).matches()) {
                        found.put(target, fd);
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        return found;
    }

    /** The descriptor of a segment this process has open ({@code /proc/self/fd/N}). */
    static Path descriptor() throws IOException {
        return descriptors().values().stream().findAny()
                .orElseThrow(() -> new IllegalStateException("no segment is open in this process"));
    }

    /** Lines of this process's memory map that map a segment. */
    static long mappings() throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> SEGMENT.matcher(l).matches()).count();
        }
    }
}
