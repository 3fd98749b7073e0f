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
 * 28  (payload follows)
 * </pre>
 */
public final class Frame {

    public static final int HEADER_BYTES = 28;
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

    private Frame() {
    }

    /** Writes a header at index 0 of {@code b} (little-endian) and leaves b ready to send. */
    public static void encode(ByteBuffer b, byte kind, int payloadLength, Signature s) {
        b.clear();
        b.order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(LENGTH, payloadLength);
        b.put(KIND, kind);
        b.put(OPERATION, (byte) s.operation());
        b.put(TYPE, (byte) s.type());
        b.put(REDUCE_OP, (byte) s.reduceOp());
        b.putInt(ROOT, s.root());
        b.putLong(COUNT, s.count());
        b.putLong(SEQUENCE, s.sequence());
        b.limit(HEADER_BYTES);
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

    public static Signature signature(ByteBuffer b) {
        return new Signature(b.get(OPERATION) & 0xff, b.get(TYPE) & 0xff, b.get(REDUCE_OP),
                b.getInt(ROOT), b.getLong(COUNT), b.getLong(SEQUENCE));
    }
}
