package io.jcoll.bootstrap;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The store's request and reply layout, after the {@link Handshake}:
 *
 * <pre>
 *  request  op u8 | keyLength u16 | key (UTF-8) | SET: valueLength u32, value | GET: timeoutMillis i64 | ADD: delta i64 | DELETE, LEAVE: nothing
 *  reply    status u8 | length u32 | payload (value, ADD's i64 sum, or an error text)
 * </pre>
 *
 * LEAVE is a rank saying it closes this connection on purpose; a connection that ends without it is a
 * departure ({@link Departures}).
 *
 * Lengths are checked against {@link #MAX_KEY} and {@link #MAX_VALUE} before
 * anything is allocated.
 */
final class StoreProtocol {

    static final byte SET = 1;
    static final byte GET = 2;
    static final byte ADD = 3;
    static final byte DELETE = 4;
    static final byte LEAVE = 5;

    static final byte OK = 0;
    static final byte MISSING = 1;
    static final byte ERROR = 2;

    static final int MAX_KEY = 1024;
    static final int MAX_VALUE = 1 << 20;

    private StoreProtocol() {
    }

    static String readKey(DataInputStream in) throws IOException {
        int length = in.readUnsignedShort();
        if (length == 0 || length > MAX_KEY) {
            throw new IOException("store key length " + length + " outside 1.." + MAX_KEY);
        }
        return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    static byte[] readSized(DataInputStream in, int max, String what) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > max) {
            throw new IOException(what + " length " + length + " outside 0.." + max);
        }
        byte[] bytes = in.readNBytes(length);
        if (bytes.length != length) {
            throw new IOException("connection closed inside a " + what);
        }
        return bytes;
    }

    /**
     * Reads the rest of one request whose operation byte was {@code op}, runs
     * it against {@code data} and writes the reply. Anything malformed throws
     * before a byte of it is stored or a buffer of a claimed size allocated.
     */
    static void answer(byte op, DataInputStream in, DataOutputStream out, Store data) throws IOException {
        if (op < SET || op > LEAVE) {
            throw new IOException("unknown store operation " + op);
        }
        String key = readKey(in);
        switch (op) {
            case SET -> {
                data.set(key, readSized(in, MAX_VALUE, "store value"));
                reply(out, OK, new byte[0]);
            }
            case GET -> {
                long millis = in.readLong();
                Optional<byte[]> v = data.get(key, Duration.ofMillis(Math.max(0, millis)));
                reply(out, v.isPresent() ? OK : MISSING, v.orElse(new byte[0]));
            }
            case ADD -> {
                long delta = in.readLong();
                try {
                    reply(out, OK, ByteBuffer.allocate(8).putLong(data.add(key, delta)).array());
                } catch (IllegalArgumentException e) {
                    reply(out, ERROR, e.getMessage().getBytes(StandardCharsets.UTF_8)); // found by the fuzzer
                }
            }
            case DELETE -> {
                data.delete(key);
                reply(out, OK, new byte[0]);
            }
            default -> reply(out, OK, new byte[0]); // LEAVE: the connection's owner notes it (StoreServer)
        }
    }

    private static void reply(DataOutputStream out, byte status, byte[] payload) throws IOException {
        out.writeByte(status);
        out.writeInt(payload.length);
        out.write(payload);
    }

    static byte[] keyBytes(String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        if (k.length == 0 || k.length > MAX_KEY) {
            throw new IllegalArgumentException("store key '" + key + "' must be 1.." + MAX_KEY + " bytes");
        }
        return k;
    }
}
