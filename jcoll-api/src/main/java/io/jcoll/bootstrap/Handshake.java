package io.jcoll.bootstrap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The opening of every jcoll connection, store and data alike: a versioned
 * hello, then mutual challenge-response over the job token. Each side proves
 * it knows the token with an HMAC-SHA256 over both sides' fresh nonces, so
 * the token itself never crosses the network and old answers cannot be replayed.
 *
 * <pre>
 *  client -> server  MAGIC u32 | VERSION u16 | purpose u8 | rank i32 | size i32 | nonceC[16]
 *  server -> client  MAGIC u32 | VERSION u16 | rank i32 | nonceS[16] | HMAC(token, "S" purpose nonceC nonceS)[32]
 *  client -> server  HMAC(token, "C" purpose nonceC nonceS)[32]
 *  server -> client  ACCEPTED u8
 * </pre>
 */
public final class Handshake {

    public static final int MAGIC = 0x4A434F4C; // "JCOL"
    public static final short VERSION = 2; // 2: DATA frames carry padding (40-byte header)
    public static final byte PURPOSE_STORE = 1;
    public static final byte PURPOSE_DATA = 2;
    /**
     * A store connection that only waits for departures ({@link Departures}): the store does not count its end
     * as its rank leaving, so the watcher can be closed while it waits.
     */
    public static final byte PURPOSE_WATCH = 3;
    private static final byte ACCEPTED = 0x2A;
    private static final int NONCE = 16;
    private static final int MAC = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What the client said about itself, and what it opened the connection for. */
    public record Hello(int rank, int size, byte purpose) {
    }

    private Handshake() {
    }

    /** Client side. Returns the server's rank. Throws if the server cannot prove the token. */
    public static int connect(DataInputStream in, DataOutputStream out, byte[] token, byte purpose,
                              int rank, int size) throws IOException {
        byte[] nonceC = nonce();
        out.writeInt(MAGIC);
        out.writeShort(VERSION);
        out.writeByte(purpose);
        out.writeInt(rank);
        out.writeInt(size);
        out.write(nonceC);
        out.flush();
        readPreamble(in, "server");
        int serverRank = in.readInt();
        byte[] nonceS = in.readNBytes(NONCE);
        byte[] serverProof = in.readNBytes(MAC);
        if (nonceS.length != NONCE || serverProof.length != MAC) {
            throw new IOException("server closed the connection during the handshake");
        }
        if (!MessageDigest.isEqual(serverProof, mac(token, 'S', purpose, nonceC, nonceS))) {
            throw new AuthenticationException("the server could not prove it knows this job's token "
                    + "(JCOLL_TOKEN differs between ranks, or this is not a jcoll endpoint)");
        }
        out.write(mac(token, 'C', purpose, nonceC, nonceS));
        out.flush();
        int verdict = in.read();
        if (verdict != ACCEPTED) {
            throw new AuthenticationException("the server refused this rank's proof of the job token");
        }
        return serverRank;
    }

    /** Server side. Returns who connected, or throws if the client cannot prove the token. */
    public static Hello accept(DataInputStream in, DataOutputStream out, byte[] token, byte expectedPurpose,
                               int rank) throws IOException {
        return accept(in, out, token, rank, expectedPurpose, expectedPurpose);
    }

    /** Server side, for a server that takes connections of either of two purposes. */
    public static Hello accept(DataInputStream in, DataOutputStream out, byte[] token, int rank, byte purposeA,
                               byte purposeB) throws IOException {
        readPreamble(in, "client");
        byte purpose = in.readByte();
        if (purpose != purposeA && purpose != purposeB) {
            throw new IOException("client opened a connection of kind " + purpose + " where " + purposeA
                    + (purposeB == purposeA ? "" : " or " + purposeB) + " was expected");
        }
        int clientRank = in.readInt();
        int clientSize = in.readInt();
        byte[] nonceC = in.readNBytes(NONCE);
        if (nonceC.length != NONCE) {
            throw new IOException("client closed the connection during the handshake");
        }
        byte[] nonceS = nonce();
        out.writeInt(MAGIC);
        out.writeShort(VERSION);
        out.writeInt(rank);
        out.write(nonceS);
        out.write(mac(token, 'S', purpose, nonceC, nonceS));
        out.flush();
        byte[] clientProof = in.readNBytes(MAC);
        if (clientProof.length != MAC || !MessageDigest.isEqual(clientProof, mac(token, 'C', purpose, nonceC, nonceS))) {
            throw new AuthenticationException("client (claiming rank " + clientRank
                    + ") could not prove it knows the job token");
        }
        out.writeByte(ACCEPTED);
        out.flush();
        return new Hello(clientRank, clientSize, purpose);
    }

    private static void readPreamble(DataInputStream in, String who) throws IOException {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new IOException(who + " is not speaking the jcoll protocol (read 0x"
                    + Integer.toHexString(magic) + " where 0x" + Integer.toHexString(MAGIC) + " was expected)");
        }
        short version = in.readShort();
        if (version != VERSION) {
            throw new IOException(who + " speaks jcoll wire version " + version + ", this rank speaks " + VERSION
                    + ": run the same jcoll version on every rank");
        }
    }

    private static byte[] nonce() {
        byte[] n = new byte[NONCE];
        RANDOM.nextBytes(n);
        return n;
    }

    private static byte[] mac(byte[] token, char side, byte purpose, byte[] nonceC, byte[] nonceS) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            // an empty token still keys the MAC; it then only proves the protocol, not the job
            mac.init(new SecretKeySpec(token.length == 0 ? new byte[1] : token, "HmacSHA256"));
            mac.update((byte) side);
            mac.update(purpose);
            mac.update(nonceC);
            mac.update(nonceS);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** The other side does not know the job token. */
    public static final class AuthenticationException extends IOException {
        public AuthenticationException(String message) {
            super(message);
        }
    }
}
