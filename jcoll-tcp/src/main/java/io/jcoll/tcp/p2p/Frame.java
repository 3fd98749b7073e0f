package io.jcoll.tcp.p2p;

import io.jcoll.spi.Signature;
import java.nio.ByteBuffer;

/**
 * The header in front of every message on a jcoll data connection, read and
 * written in place over a buffer (no objects per frame). Little-endian.
 *
 * <pre>
 *  0  i32 payload length     (checked against what the receiver expects before any payload is used; no more than the posted receive holds is ever read)
 *  4  u8  kind               DATA, ABORT (payload: the reason, in UTF-8) or CLOSE
 *  5  u8  operation          } the sender's {@link Signature}
 *  6  u8  data type          }
 *  7  i8  reduce op (-1)     }
 *  8  i32 root; for ABORT the rank that failed
 * 12  i64 count              }
 * 20  i64 sequence           }
 * 28  i64 history            digest of every collective the sender completed before this frame's
 *                            ({@link Signature#foldInto}): a difference shows an earlier disagreement that
 *                            finished silently (a broadcast's root, say)
 * 36  i32 padding            bytes between the header and the payload, 0 to {@link #MAX_PADDING}; only a DATA
 *                            payload of at least {@link #MIN_PADDED_PAYLOAD} bytes is padded (see PayloadPlacement)
 * 40  (padding, then the payload)
 * </pre>
 *
 * <p>In an uneven all-to-all the count field holds the count of the pair's own exchange, so that a receiver
 * that expects another count refuses the first frame before any of its payload is used.
 */
public final class Frame {

    public static final int HEADER_BYTES = 40;
    /** The most padding a frame may carry: less than a page. */
    public static final int MAX_PADDING = 4095;
    /** Shorter payloads are never padded, so that a receiver may read their header and payload in one go. */
    public static final int MIN_PADDED_PAYLOAD = 16 << 10;
    public static final byte DATA = 1;
    public static final byte ABORT = 2;
    public static final byte CLOSE = 3;
    /** The longest reason an ABORT frame may carry. */
    public static final int MAX_REASON_BYTES = 4096;

    private static final int LENGTH = 0;
    private static final int KIND = 4;
    private static final int OPERATION = 5;
    private static final int TYPE = 6;
    private static final int REDUCE_OP = 7;
    private static final int ROOT = 8;
    private static final int COUNT = 12;
    private static final int SEQUENCE = 20;
    private static final int HISTORY = 28;
    private static final int PADDING = 36;

    private Frame() {
    }

    /** Writes a header at index 0 of {@code b} (little-endian), with no history, and leaves b ready to send. */
    public static void encode(ByteBuffer b, byte kind, int payloadLength, Signature s) {
        encode(b, kind, payloadLength, s, s.count(), 0);
    }

    /**
     * Writes a header at index 0 of {@code b} (little-endian) and leaves b ready to send.
     *
     * @param count   the count to carry: the signature's, or a pair's within an uneven all-to-all
     * @param history the sender's digest of the collectives it completed
     */
    public static void encode(ByteBuffer b, byte kind, int payloadLength, Signature s, long count, long history) {
        b.clear();
        b.order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(LENGTH, payloadLength);
        b.put(KIND, kind);
        b.put(OPERATION, (byte) s.operation());
        b.put(TYPE, (byte) s.type());
        b.put(REDUCE_OP, (byte) s.reduceOp());
        b.putInt(ROOT, s.root());
        b.putLong(COUNT, count);
        b.putLong(SEQUENCE, s.sequence());
        b.putLong(HISTORY, history);
        b.putInt(PADDING, 0);
        b.limit(HEADER_BYTES);
    }

    /** Sets the padding of the header at index 0 of {@code b} (encoded with none). */
    public static void setPadding(ByteBuffer b, int padding) {
        if (padding < 0 || padding > MAX_PADDING) {
            throw new IllegalArgumentException("padding " + padding + " is outside 0.." + MAX_PADDING);
        }
        b.putInt(PADDING, padding);
    }

    /** The bytes between the header and the payload, as the sender wrote it: check with {@link #paddingValid}. */
    public static int padding(ByteBuffer b) {
        return b.getInt(PADDING);
    }

    /** Whether a frame's padding is one a sender may write: none, or up to {@link #MAX_PADDING} before a long DATA payload. */
    public static boolean paddingValid(ByteBuffer b) {
        int padding = padding(b);
        return padding == 0 || padding > 0 && padding <= MAX_PADDING && kind(b) == DATA
                && payloadLength(b) >= MIN_PADDED_PAYLOAD;
    }

    public static int payloadLength(ByteBuffer b) {
        return b.getInt(LENGTH);
    }

    public static byte kind(ByteBuffer b) {
        return b.get(KIND);
    }

    /** For ABORT frames: the rank whose failure is being reported. */
    public static int failedRank(ByteBuffer b) {
        return b.getInt(ROOT);
    }

    /** The sender's digest of the collectives it had completed. */
    public static long history(ByteBuffer b) {
        return b.getLong(HISTORY);
    }

    public static Signature signature(ByteBuffer b) {
        return new Signature(b.get(OPERATION) & 0xff, b.get(TYPE) & 0xff, b.get(REDUCE_OP),
                b.getInt(ROOT), b.getLong(COUNT), b.getLong(SEQUENCE));
    }
}
