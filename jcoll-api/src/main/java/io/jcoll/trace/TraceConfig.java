package io.jcoll.trace;

import io.jcoll.spi.Settings;

import java.nio.file.Path;

/**
 * The flight recorder's settings.
 *
 * @param capacity calls each communicator keeps ({@code JCOLL_TRACE_BUFFER}, default
 *                 {@value FlightRecorder#DEFAULT_CAPACITY}; 0 records nothing and writes no file)
 * @param dir      where a failing rank writes its file ({@code JCOLL_TRACE_DIR}, default the working directory)
 */
public record TraceConfig(int capacity, Path dir) {

    /** More than this many calls per communicator is refused: the ring is kept in memory, about 80 bytes a call. */
    public static final int MAX_CAPACITY = 1 << 20;

    public TraceConfig {
        if (capacity < 0 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("JCOLL_TRACE_BUFFER=" + capacity + " is not a number of calls from 0 "
                    + "(recording off) to " + MAX_CAPACITY);
        }
    }

    /** From {@code JCOLL_TRACE_BUFFER} and {@code JCOLL_TRACE_DIR}. */
    public static TraceConfig from(Settings settings) {
        return new TraceConfig(settings.getInt("JCOLL_TRACE_BUFFER", FlightRecorder.DEFAULT_CAPACITY),
                Path.of(settings.get("JCOLL_TRACE_DIR").orElse(".")));
    }
}
