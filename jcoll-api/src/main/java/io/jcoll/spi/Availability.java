package io.jcoll.spi;

import java.util.Map;

/**
 * Whether a transport can run on this rank, and why (or why not), in words a
 * user can act on, with the facts behind it ({@code nccl_version},
 * {@code nccl_library}, ...) for {@code jcoll doctor --json}.
 */
public record Availability(boolean usable, String reason, Map<String, String> facts) {

    public Availability {
        facts = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(facts));
    }

    public static Availability usable(String reason) {
        return new Availability(true, reason, Map.of());
    }

    public static Availability unusable(String reason) {
        return new Availability(false, reason, Map.of());
    }

    /** The same verdict with facts, kept in the order given. */
    public Availability withFacts(Map<String, String> facts) {
        return new Availability(usable, reason, facts);
    }
}
