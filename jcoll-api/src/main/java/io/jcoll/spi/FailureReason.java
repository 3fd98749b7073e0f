package io.jcoll.spi;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A failure's reason as a transport hands it to its peers, in a bounded number of bytes.
 *
 * <p>Failures travel from rank to rank, and each rank that passes one on puts its own account in front ("rank 1
 * aborted while this rank was in allGather #12: rank 3 failed: ..."), so the first cause, the one worth naming,
 * ends up at the end of the text. Cutting off the end would lose exactly that after a few hops; this keeps the
 * beginning (who passed it on) and the end (what started it) and drops the middle.
 */
public final class FailureReason {

    /** What stands where the middle was dropped. */
    static final String GAP = " [...] ";

    private FailureReason() {
    }

    /**
     * {@code text} in at most {@code maxBytes} bytes of UTF-8: whole if it fits, otherwise its first quarter and
     * its last three quarters, less {@link #GAP}, each cut at a character's boundary.
     *
     * @param text     the reason, as long as it is
     * @param maxBytes the room for it, at least 32
     * @return its UTF-8 bytes, at most {@code maxBytes} of them
     */
    public static byte[] fit(String text, int maxBytes) {
        if (maxBytes < 32) {
            throw new IllegalArgumentException("a reason needs room for 32 bytes at least (was " + maxBytes + ")");
        }
        byte[] whole = text.getBytes(StandardCharsets.UTF_8);
        if (whole.length <= maxBytes) {
            return whole;
        }
        byte[] gap = GAP.getBytes(StandardCharsets.UTF_8);
        int room = maxBytes - gap.length;
        int headEnd = boundaryAtOrBefore(whole, room / 4);
        int tailStart = boundaryAtOrAfter(whole, whole.length - (room - headEnd));
        byte[] fitted = Arrays.copyOf(whole, headEnd + gap.length + whole.length - tailStart);
        System.arraycopy(gap, 0, fitted, headEnd, gap.length);
        System.arraycopy(whole, tailStart, fitted, headEnd + gap.length, whole.length - tailStart);
        return fitted;
    }

    /** The first character boundary at or before {@code at}: not inside a multi-byte character. */
    private static int boundaryAtOrBefore(byte[] utf8, int at) {
        while (at > 0 && isContinuation(utf8[at])) {
            at--;
        }
        return at;
    }

    /** The first character boundary at or after {@code at}. */
    private static int boundaryAtOrAfter(byte[] utf8, int at) {
        while (at < utf8.length && isContinuation(utf8[at])) {
            at++;
        }
        return at;
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xC0) == 0x80;
    }
}
