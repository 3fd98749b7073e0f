package io.jcoll.internal;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/**
 * A number naming the host this process runs on, the same for every process of the host: ranks compare it to
 * find which of them share a host (a sub-communicator's local ranks). {@code JCOLL_HOST_ID} overrides it, for
 * hosts that share a name; otherwise it is the kernel's host name, read from {@code /proc} (no DNS lookup).
 */
public final class HostIdentity {

    private static volatile Long cached;

    private HostIdentity() {
    }

    static long of(io.jcoll.spi.Settings settings) {
        java.util.Optional<String> given = settings.get("JCOLL_HOST_ID");
        if (given.isPresent()) {
            return hash(given.get());
        }
        Long id = cached;
        if (id == null) {
            id = hash(hostName());
            cached = id;
        }
        return id;
    }

    /**
     * The host's name as the doctor and {@code jcoll launch} report it: {@code JCOLL_HOST_ID} when set, else the
     * kernel's host name.
     *
     * @param settings where {@code JCOLL_HOST_ID} is looked up
     * @return the name
     */
    public static String name(io.jcoll.spi.Settings settings) {
        return settings.get("JCOLL_HOST_ID").orElseGet(HostIdentity::hostName);
    }

    private static String hostName() {
        try {
            return io.jcoll.probe.SystemFiles.live().read("/proc/sys/kernel/hostname").orElseThrow();
        } catch (RuntimeException e) {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException unknown) {
                return "unknown host";
            }
        }
    }

    private static long hash(String name) {
        long h = 0xcbf29ce484222325L; // FNV-1a: stable across JVMs and runs, unlike String.hashCode's spread
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        return h;
    }
}
