package io.jcoll.gpu;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * This process's environment as native code sees it: the C library's
 * {@code environ} array, which NCCL reads with {@code getenv}. Java cannot
 * change it ({@link System#getenv()} is a copy taken at start-up) and the
 * presets bind no {@code setenv}, so a variable is added the way
 * {@code setenv} itself would do it: a new array holding the old entries plus
 * the new one, published by one pointer store to {@code environ}. Readers
 * that are walking the old array keep a valid one, because neither the old
 * array nor any string is ever freed (the few bytes are the price of never
 * pulling memory out from under a concurrent {@code getenv}). Meant for setting
 * NCCL's variables before NCCL first reads them; existing entries are never replaced.
 */
public final class ProcessEnvironment {

    private ProcessEnvironment() {
    }

    /** The variable as the C library sees it now. */
    public static synchronized Optional<String> get(String name) {
        PointerPointer<?> entries = entries();
        String prefix = name + "=";
        for (long i = 0; ; i++) {
            Pointer entry = entries.get(i);
            if (entry == null || entry.isNull()) {
                return Optional.empty();
            }
            String text = new BytePointer(entry).getString(StandardCharsets.UTF_8);
            if (text.startsWith(prefix)) {
                return Optional.of(text.substring(prefix.length()));
            }
        }
    }

    /**
     * Adds {@code name=value} unless the variable is already set. Returns
     * whether it was added.
     */
    public static synchronized boolean setIfAbsent(String name, String value) {
        if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0 || value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a valid environment variable: '" + name + "'");
        }
        if (get(name).isPresent()) {
            return false;
        }
        PointerPointer<?> old = entries();
        long count = 0;
        while (old.get(count) != null && !old.get(count).isNull()) {
            count++;
        }
        long slots = count + 2; // the old entries, the new one, the terminating null
        Pointer array = Pointer.malloc(slots * Pointer.sizeof(PointerPointer.class));
        if (array == null || array.isNull()) {
            throw new OutOfMemoryError("malloc of the environment array failed");
        }
        PointerPointer<?> fresh = new PointerPointer<>(array).capacity(slots);
        for (long i = 0; i < count; i++) {
            fresh.put(i, old.get(i));
        }
        fresh.put(count, cString(name + "=" + value));
        fresh.put(count + 1, (Pointer) null);
        new PointerPointer<>(environSymbol()).capacity(1).put(0, array);
        return true;
    }

    private static Pointer environSymbol() {
        Pointer.maxBytes(); // initialises Pointer, which loads JavaCPP's own native part (addressof is in it)
        Pointer symbol = Loader.addressof("environ");
        if (symbol == null || symbol.isNull()) {
            throw new IllegalStateException("the C library's environ symbol was not found");
        }
        return symbol;
    }

    /** The array {@code environ} points at now. */
    private static PointerPointer<?> entries() {
        Pointer array = new PointerPointer<>(environSymbol()).capacity(1).get(0);
        if (array == null || array.isNull()) {
            throw new IllegalStateException("environ is null");
        }
        return new PointerPointer<>(array);
    }

    /** A NUL-terminated copy in memory that is never freed. */
    private static Pointer cString(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        Pointer p = Pointer.malloc(bytes.length + 1);
        if (p == null || p.isNull()) {
            throw new OutOfMemoryError("malloc of an environment string failed");
        }
        new BytePointer(p).capacity(bytes.length + 1).put(bytes).put(bytes.length, (byte) 0);
        return p;
    }
}
