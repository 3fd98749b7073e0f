package io.jcoll.spi;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a rank is doing at one step, in a form ranks can compare: operation,
 * type, reduce op, root, count and collective sequence number. Transports
 * check it on every call (TCP in every frame header, MPI through a small
 * exchange before each collective), and {@code JCOLL_DEBUG=check} through the
 * store for the others, so that mismatched calls fail with a message instead
 * of hanging or returning wrong data.
 *
 * @param operation {@link Operation} ordinal (a recv carries its send's, so that the two match)
 * @param type      {@link DataType} ordinal
 * @param reduceOp  {@link ReduceOp} ordinal, or -1
 * @param root      broadcast's root, -1 otherwise
 * @param count     elements, as {@link Call#count()}
 * @param sequence  collective sequence number, or -1 for point-to-point
 */
public record Signature(int operation, int type, int reduceOp, int root, long count, long sequence) {

    /** Bytes of {@link #writeTo}'s encoding. */
    public static final int BYTES = 32;

    /**
     * @param call a validated call
     * @return the signature of the call; a recv's is that of the send it expects
     */
    public static Signature of(Call call) {
        return new Signature(operationOf(call), call.type().ordinal(), reduceOpOf(call), rootOf(call), countOf(call),
                call.sequence());
    }

    /**
     * {@code of(call).writeTo(b, offset)} without the signature object: for a transport that writes every call's
     * signature where its peers read it, on a small call's path.
     *
     * @param call   a validated call
     * @param b      destination
     * @param offset where in {@code b}
     */
    public static void writeTo(Call call, ByteBuffer b, int offset) {
        // written out, not through write(): one call level fewer under a transport's call path, which is deep
        // enough already that the JIT, at its depth limit, stopped inlining the buffer's puts
        ByteBuffer le = littleEndian(b);
        le.putInt(offset, operationOf(call));
        le.putInt(offset + 4, call.type().ordinal());
        le.putInt(offset + 8, reduceOpOf(call));
        le.putInt(offset + 12, rootOf(call));
        le.putLong(offset + 16, countOf(call));
        le.putLong(offset + 24, call.sequence());
    }

    /**
     * {@code of(call).foldInto(digest)} without the signature object.
     *
     * @param call   a validated call
     * @param digest the digest of the calls before this one (0 at the start)
     * @return the digest including this call
     */
    public static long foldInto(Call call, long digest) {
        return fold(digest, operationOf(call), call.type().ordinal(), reduceOpOf(call), rootOf(call), countOf(call),
                call.sequence());
    }

    /** A recv's is the send's it expects, so that the two match. */
    private static int operationOf(Call call) {
        return call.operation() == Operation.RECV ? Operation.SEND.ordinal() : call.operation().ordinal();
    }

    private static int reduceOpOf(Call call) {
        return call.reduceOp() == null ? -1 : call.reduceOp().ordinal();
    }

    private static int rootOf(Call call) {
        return call.operation().isCollective() ? call.root() : -1;
    }

    /**
     * An uneven all-to-all's counts differ from peer to peer: its signature holds none, and the TCP transport puts
     * each pair's count in the frames between them instead.
     */
    private static long countOf(Call call) {
        return call.operation() == Operation.ALL_TO_ALL_V ? 0 : call.count();
    }

    /**
     * Writes the fixed {@link #BYTES}-byte little-endian encoding at {@code offset}.
     *
     * @param b      destination
     * @param offset where in {@code b}
     */
    public void writeTo(ByteBuffer b, int offset) {
        ByteBuffer le = littleEndian(b);
        le.putInt(offset, operation);
        le.putInt(offset + 4, type);
        le.putInt(offset + 8, reduceOp);
        le.putInt(offset + 12, root);
        le.putLong(offset + 16, count);
        le.putLong(offset + 24, sequence);
    }

    /**
     * @param b      source
     * @param offset where {@link #writeTo} wrote it
     * @return the signature read back; fields are not range-checked ({@link #describe} copes)
     */
    public static Signature readFrom(ByteBuffer b, int offset) {
        ByteBuffer le = littleEndian(b);
        return new Signature(le.getInt(offset), le.getInt(offset + 4), le.getInt(offset + 8), le.getInt(offset + 12),
                le.getLong(offset + 16), le.getLong(offset + 24));
    }

    /** {@code b} itself where it is little-endian already (every call writes one: no copy of the buffer object). */
    private static ByteBuffer littleEndian(ByteBuffer b) {
        return b.order() == ByteOrder.LITTLE_ENDIAN ? b : b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The same signature with another count: the count of one pair's exchange within an uneven all-to-all. */
    public Signature withCount(long c) {
        return c == count ? this : new Signature(operation, type, reduceOp, root, c, sequence);
    }

    /**
     * Folds this signature into a running digest of every collective a rank has completed, so that ranks can
     * compare their whole histories in one number: two ranks whose digests differ disagreed about some earlier
     * call (a broadcast's root, say) even if that call finished on both without an error.
     *
     * @param digest the digest of the calls before this one (0 at the start)
     * @return the digest including this call
     */
    public long foldInto(long digest) {
        return fold(digest, operation, type, reduceOp, root, count, sequence);
    }

    private static long fold(long digest, int operation, int type, int reduceOp, int root, long count, long sequence) {
        // the four small fields in one word, each within its bits (ordinals below 256, a reduce op's ordinal or -1,
        // a rank): three mixing rounds where one a field took six, on every small call's path
        long small = (operation & 0xFFL) | (type & 0xFFL) << 8 | (reduceOp & 0xFFFFL) << 16 | (long) root << 32;
        long h = mix(digest * 0x9E3779B97F4A7C15L ^ small);
        h = mix(h ^ count);
        return mix(h ^ sequence);
    }

    private static long mix(long z) { // SplitMix64's finaliser
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** @return this signature in words, for mismatch messages: {@code allReduce #5 (100 x float32, sum)} */
    public String describe() {
        Operation[] ops = Operation.values();
        DataType[] types = DataType.values();
        ReduceOp[] reduceOps = ReduceOp.values();
        StringBuilder b = new StringBuilder();
        b.append(operation >= 0 && operation < ops.length ? ops[operation].label() : "operation " + operation);
        if (sequence >= 0) {
            b.append(" #").append(sequence);
        }
        boolean uneven = operation == Operation.ALL_TO_ALL_V.ordinal() && count == 0;
        b.append(" (").append(uneven ? "uneven" : Long.toString(count)).append(" x ")
                .append(type >= 0 && type < types.length ? types[type].toString() : "type " + type);
        if (reduceOp >= 0) {
            b.append(", ").append(reduceOp < reduceOps.length ? reduceOps[reduceOp].toString() : "op " + reduceOp);
        }
        if (root >= 0) {
            b.append(", root ").append(root);
        }
        return b.append(')').toString();
    }

    /**
     * Compares every rank's signature for one step.
     *
     * @param byRank each rank's signature, indexed by rank
     * @return null if all agree, else which ranks are in what, such as
     *         {@code "ranks [0, 2] are in allReduce #4 (...); rank 1 is in broadcast #4 (...)"}
     */
    public static String disagreement(Signature[] byRank) {
        Map<Signature, List<Integer>> groups = new LinkedHashMap<>();
        for (int r = 0; r < byRank.length; r++) {
            groups.computeIfAbsent(byRank[r], s -> new ArrayList<>()).add(r);
        }
        if (groups.size() <= 1) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        for (Map.Entry<Signature, List<Integer>> g : groups.entrySet()) {
            List<Integer> ranks = g.getValue();
            b.append(b.length() == 0 ? "" : "; ")
                    .append(ranks.size() == 1 ? "rank " + ranks.get(0) + " is" : "ranks " + ranks + " are")
                    .append(" in ").append(g.getKey().describe());
        }
        return b.toString();
    }
}
