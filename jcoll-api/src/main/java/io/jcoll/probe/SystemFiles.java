package io.jcoll.probe;

import io.jcoll.spi.Settings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Reads {@code /sys} and {@code /proc} under a root that stands in for
 * {@code /}: the real one, or a fixture tree ({@code JCOLL_SYSFS_ROOT},
 * {@code doctor --sysfs-root}). Paths are written as absolute ones
 * ({@code "/sys/class/net"}) and resolved under the root. A file that cannot
 * be read counts as absent: sysfs answers some reads with an error (a GID
 * slot with no entry, the speed of a link that is down), and that means "no
 * value", not a failure of the probe.
 */
public final class SystemFiles {

    public static final String ROOT_VARIABLE = "JCOLL_SYSFS_ROOT";

    private final Path root;

    private SystemFiles(Path root) {
        this.root = root;
    }

    /** The running machine's own files. */
    public static SystemFiles live() {
        return new SystemFiles(Path.of("/"));
    }

    /** A tree laid out like {@code /}. */
    public static SystemFiles at(Path root) {
        return new SystemFiles(root.toAbsolutePath().normalize());
    }

    /** {@code JCOLL_SYSFS_ROOT} when set, else the running machine. */
    public static SystemFiles from(Settings settings) {
        return settings.get(ROOT_VARIABLE).map(p -> at(Path.of(p))).orElseGet(SystemFiles::live);
    }

    public Path root() {
        return root;
    }

    /** Whether these are the running machine's files (so asking the kernel directly agrees with them). */
    public boolean isLive() {
        return root.equals(Path.of("/"));
    }

    private Path resolve(String path) {
        return root.resolve(path.startsWith("/") ? path.substring(1) : path);
    }

    /** The file's text without surrounding white space; empty if absent, unreadable or blank. */
    public Optional<String> read(String path) {
        try {
            String text = new String(readAll(resolve(path)), StandardCharsets.UTF_8).trim();
            return text.isEmpty() ? Optional.empty() : Optional.of(text);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * A file's bytes, asked for in large reads. {@code Files.readAllBytes} sizes its first read by the file's size,
     * which procfs reports as 0, and so reads one byte first; the kernel's sysctl handlers answer any read past
     * offset 0 with end of file, and {@code /proc/sys/net/core/rmem_max} would read as "4".
     */
    private static byte[] readAll(Path file) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(file)) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[16384];
            int n;
            while ((n = in.read(buffer, 0, buffer.length)) > 0) {
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        }
    }

    /** The file's lines; empty if absent or unreadable. */
    public List<String> lines(String path) {
        try {
            return Files.readAllLines(resolve(path), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** A whole number from the file, or {@code fallback}. */
    public long readLong(String path, long fallback) {
        return read(path).map(v -> {
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                return fallback;
            }
        }).orElse(fallback);
    }

    public boolean exists(String path) {
        return Files.exists(resolve(path));
    }

    /** The names in a directory, sorted; empty if it is absent. */
    public List<String> list(String dir) {
        try (Stream<Path> s = Files.list(resolve(dir))) {
            List<String> names = new ArrayList<>();
            s.forEach(p -> names.add(p.getFileName().toString()));
            names.sort(null);
            return names;
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /**
     * Where a path leads once every symbolic link is followed, written as an
     * absolute path of this tree ({@code /sys/devices/pci0000:00/...}). sysfs
     * places each device at its position in the bus hierarchy and links to it
     * from {@code /sys/class} and {@code /sys/bus}, so this path is the device's
     * PCI topology.
     */
    public Optional<String> realPath(String path) {
        try {
            Path real = resolve(path).toRealPath();
            Path base = root.toRealPath();
            if (!real.startsWith(base)) {
                return Optional.empty(); // a link out of a fixture tree says nothing about the fixture machine
            }
            return Optional.of("/" + base.relativize(real).toString().replace('\\', '/'));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return root.toString();
    }
}
