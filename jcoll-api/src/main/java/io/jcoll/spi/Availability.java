package io.jcoll.spi;

/**
 * Whether a transport can run on this rank, and why (or why not), in words a
 * user can act on.
 */
public record Availability(boolean usable, String reason) {

    public static Availability usable(String reason) {
        return new Availability(true, reason);
    }

    public static Availability unusable(String reason) {
        return new Availability(false, reason);
    }
}
