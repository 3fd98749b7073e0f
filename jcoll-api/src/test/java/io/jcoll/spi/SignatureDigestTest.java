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

    @Test
    void theOrderOfCallsCounts() {
        Signature a = new Signature(0, 0, 0, -1, 10, 0);
        Signature b = new Signature(4, 0, -1, 0, 10, 1);
        assertNotEquals(b.foldInto(a.foldInto(0)), a.foldInto(b.foldInto(0)));
    }
}
