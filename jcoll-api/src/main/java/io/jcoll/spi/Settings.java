package io.jcoll.spi;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * jcoll's configuration: environment variables, with values set on the
 * builder taking precedence. Keys are environment-variable names
 * ({@code JCOLL_TIMEOUT}, {@code RANK}); where a torchrun variable has a
 * {@code JCOLL_}-prefixed twin, the twin wins ({@code JCOLL_RANK} over {@code RANK}).
 */
public final class Settings {

    private final Map<String, String> values;

    private Settings(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /** The process environment. */
    public static Settings fromEnvironment() {
        return new Settings(System.getenv());
    }

    /** Exactly the given values (tests, embedding). */
    public static Settings of(Map<String, String> values) {
        return new Settings(values);
    }

    /** A copy with {@code key} set to {@code value} (or removed, for null). */
    public Settings with(String key, String value) {
        Map<String, String> m = new HashMap<>(values);
        if (value == null) {
            m.remove(key);
        } else {
            m.put(key, value);
        }
        return new Settings(m);
    }

    /** The value of {@code JCOLL_<name>} if set, else {@code <name>}. */
    public Optional<String> get(String name) {
        String v = values.get(name.startsWith("JCOLL_") ? name : "JCOLL_" + name);
        if (v == null || v.isBlank()) {
            v = values.get(name);
        }
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
    }

    /** Where {@link #get} finds a value: the variable's name, or null. */
    public String sourceOf(String name) {
        String prefixed = name.startsWith("JCOLL_") ? name : "JCOLL_" + name;
        String v = values.get(prefixed);
        if (v != null && !v.isBlank()) {
            return prefixed;
        }
        v = values.get(name);
        return v != null && !v.isBlank() ? name : null;
    }

    public int getInt(String name, int fallback) {
        return get(name).map(v -> parseInt(name, v)).orElse(fallback);
    }

    public Duration getDuration(String name, Duration fallback) {
        return get(name).map(v -> parseDuration(name, v)).orElse(fallback);
    }

    public long getBytes(String name, long fallback) {
        return get(name).map(v -> parseBytes(v)).orElse(fallback);
    }

    private static int parseInt(String name, String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "='" + v + "' is not a whole number");
        }
    }

    /** Parses {@code 600} (seconds), {@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h}. */
    public static Duration parseDuration(String name, String v) {
        String t = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("us")) return Duration.ofNanos(Long.parseLong(t.substring(0, t.length() - 2).trim()) * 1000);
            if (t.endsWith("ms")) return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
            if (t.endsWith("s")) return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
            if (t.endsWith("m")) return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()) * 60);
            if (t.endsWith("h")) return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()) * 3600);
            return Duration.ofMillis(Math.round(Double.parseDouble(t) * 1000));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "='" + v + "' is not a duration (examples: 600, 30s, 500ms, 20us, 10m)");
        }
    }

    /** Parses a byte count with an optional K, M or G suffix (powers of 1024). */
    public static long parseBytes(String v) {
        String t = v.trim().toUpperCase(Locale.ROOT);
        if (t.endsWith("B")) {
            t = t.substring(0, t.length() - 1);
        }
        long scale = 1;
        if (t.endsWith("K")) scale = 1L << 10;
        else if (t.endsWith("M")) scale = 1L << 20;
        else if (t.endsWith("G")) scale = 1L << 30;
        if (scale != 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(t.trim()), scale);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + v + "' is not a byte size (examples: 8, 64K, 32M, 1G)");
        }
    }
}
