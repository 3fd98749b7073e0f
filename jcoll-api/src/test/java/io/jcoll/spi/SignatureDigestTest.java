package io.jcoll.spi;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class SignatureDigestTest {

    /**
     * Every signature of a grid that covers each field's range edges (a reduce op of -1, a root of -1 and the
     * largest rank, counts and sequences of 0 and beyond 32 bits) folds into its own digest, from two starting
     * digests: two calls that differ in any one field never leave two ranks with equal histories.
     */
    @Test
    void signaturesThatDifferInAnyFieldFoldApart() {
        int[] ops = {0, 1, 5, Operation.values().length - 1};
        int[] types = {0, 3, 7};
        int[] reduceOps = {-1, 0, 1, 4};
        int[] roots = {-1, 0, 1, 7, Integer.MAX_VALUE};
        long[] counts = {0, 1, 100, 1L << 33};
        long[] sequences = {-1, 0, 1, 1L << 40};
        for (long start : new long[] {0, 0x5DEECE66DL}) {
            Set<Long> digests = new HashSet<>();
            int n = 0;
            for (int op : ops) {
                for (int type : types) {
                    for (int reduceOp : reduceOps) {
                        for (int root : roots) {
                            for (long count : counts) {
                                for (long sequence : sequences) {
                                    digests.add(new Signature(op, type, reduceOp, root, count, sequence).foldInto(start));
                                    n++;
                                }
                            }
                        }
                    }
                }
            }
            assertEquals(n, digests.size(), "two signatures folded into one digest from " + start);
        }
    }

    /**
     * A transport that writes a call's signature, or folds it into its history, straight from the call (no signature
     * object on a small call's path) gets the very bytes and digest of the signature {@link Signature#of} makes:
     * a recv as the send it expects, a point-to-point call without its peer, an uneven all-to-all without a count.
     */
    @Test
    void writingFromTheCallMatchesItsSignature() {
        io.jcoll.HostBuffer b = io.jcoll.HostBuffer.of(new float[5]);
        long[] counts = {2, 3};
        Vectors v = new Vectors(counts, new long[] {0, 2}, counts, new long[] {0, 2});
        java.util.List<Call> calls = java.util.List.of(
                new Call(Operation.ALL_REDUCE, b, b, 5, io.jcoll.DataType.FLOAT32, io.jcoll.ReduceOp.MAX, -1, 9, true),
                new Call(Operation.BROADCAST, null, b, 4, io.jcoll.DataType.FLOAT32, null, 1, 1L << 40, false),
                new Call(Operation.SEND, b, null, 3, io.jcoll.DataType.FLOAT32, null, 1, -1, false),
                new Call(Operation.RECV, null, b, 3, io.jcoll.DataType.FLOAT32, null, 0, -1, false),
                new Call(Operation.ALL_TO_ALL_V, b, b, 0, io.jcoll.DataType.FLOAT32, null, -1, 3, false, v,
                        java.util.List.of()));
        for (Call call : calls) {
            Signature s = Signature.of(call);
            for (java.nio.ByteOrder order : new java.nio.ByteOrder[] {java.nio.ByteOrder.LITTLE_ENDIAN,
                    java.nio.ByteOrder.BIG_ENDIAN}) {
                java.nio.ByteBuffer fromSignature = java.nio.ByteBuffer.allocate(Signature.BYTES + 8).order(order);
                java.nio.ByteBuffer fromCall = java.nio.ByteBuffer.allocate(Signature.BYTES + 8).order(order);
                s.writeTo(fromSignature, 8);
                Signature.writeTo(call, fromCall, 8);
                assertEquals(fromSignature, fromCall, call.describe() + ", " + order);
                assertEquals(s, Signature.readFrom(fromCall, 8), call.describe());
            }
            for (long digest : new long[] {0, 0x5DEECE66DL}) {
                assertEquals(s.foldInto(digest), Signature.foldInto(call, digest), call.describe());
            }
        }
        assertEquals(Operation.SEND.ordinal(), Signature.of(calls.get(3)).operation(), "a recv signs as its send");
        assertEquals(-1, Signature.of(calls.get(2)).root(), "a send's peer is no part of its signature");
        assertEquals(0, Signature.of(calls.get(4)).count(), "an uneven all-to-all's signature holds no count");
    }

    @Test
    void theOrderOfCallsCounts() {
        Signature a = new Signature(0, 0, 0, -1, 10, 0);
        Signature b = new Signature(4, 0, -1, 0, 10, 1);
        assertNotEquals(b.foldInto(a.foldInto(0)), a.foldInto(b.foldInto(0)));
    }
}
