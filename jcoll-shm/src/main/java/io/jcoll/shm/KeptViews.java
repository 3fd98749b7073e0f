package io.jcoll.shm;

import io.jcoll.spi.StagedAccess;

import java.nio.ByteBuffer;

/**
 * The views that the boxes' path last took of the caller's buffers, kept for its next call: a training loop passes
 * the same buffers call after call, and a view made anew is an object and a few dozen nanoseconds, a tenth of a
 * small call. Only views are kept (of a host buffer over a byte buffer, which views the same memory for its whole
 * life and is checked when it is first viewed); a buffer reached through a stage is copied through it anew. Used
 * by the thread running the call only, never by a crew's helpers.
 */
final class KeptViews {

    private final Kept input = new Kept();
    private final Kept output = new Kept();

    /** {@link Slots#readable}, the view kept from the last call where it asks for the same bytes of the same buffer. */
    ByteBuffer readable(Slots s, StagedAccess from, long byteOffset, int length) {
        if (input.holds(from, byteOffset, length)) {
            return input.view;
        }
        return input.keep(from, byteOffset, length, s.readable(from, byteOffset, length));
    }

    /** {@link Slots#writable}, the view kept from the last call where it asks for the same bytes of the same buffer. */
    ByteBuffer writable(Slots s, StagedAccess to, long byteOffset, int length) {
        if (output.holds(to, byteOffset, length)) {
            return output.view;
        }
        return output.keep(to, byteOffset, length, s.writable(to, byteOffset, length));
    }

    /** One buffer's range and its view; empty until a buffer that gives views passes. */
    private static final class Kept {
        private StagedAccess buffer;
        private long byteOffset;
        private int length;
        private ByteBuffer view;

        boolean holds(StagedAccess b, long at, int n) {
            return b == buffer && at == byteOffset && n == length;
        }

        ByteBuffer keep(StagedAccess b, long at, int n, ByteBuffer v) {
            boolean isView = Slots.givesViews(b);
            buffer = isView ? b : null; // a stage's contents are this call's only
            byteOffset = at;
            length = n;
            view = isView ? v : null;
            return v;
        }
    }
}
