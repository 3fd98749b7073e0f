package io.jcoll.tcp.algorithm;

import io.jcoll.DataType;
import io.jcoll.HostBuffer;
import io.jcoll.testing.Data;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The piecewise local copy that fills a pipeline's waits: a piece at a time it copies exactly its range (nothing
 * around it), over every kind of host memory, and is finished at once in place or when empty.
 */
class LocalCopyTest {

    @ParameterizedTest
    @EnumSource(Data.Kind.class)
    void copiesItsRangeAPieceAtATime(Data.Kind kind) {
        int stage = 4 << 10; // a small stage: pieces of at most 1,024 floats
        for (int count : new int[] {1, 7, 1_021, 40_009}) {
            SplittableRandom rnd = new SplittableRandom();
            int before = rnd.nextInt(0, 5);
            int total = before + count + 3;
            double[] source = Data.random(DataType.FLOAT32, null, total, rnd.nextLong());
            double[] target = Data.random(DataType.FLOAT32, null, total, rnd.nextLong());
            HostBuffer src = Data.buffer(DataType.FLOAT32, kind, total, source);
            HostBuffer dst = Data.buffer(DataType.FLOAT32, kind, total, target);

            LocalCopy copy = new LocalCopy(new Region(src, before), new Region(dst, before), count, new Scratch(stage));
            int pieces = 0;
            while (!copy.finished()) {
                copy.step();
                pieces++;
            }
            copy.finish(); // nothing left: a no-op

            double[] want = target.clone();
            System.arraycopy(source, before, want, before, count);
            assertArrayEquals(want, Data.read(dst, total), kind + ", " + count + " elements");
            assertEquals((count + stage / 4 - 1) / (stage / 4), pieces, "pieces of one stage for " + count);
        }
    }

    @ParameterizedTest
    @EnumSource(Data.Kind.class)
    void inPlaceOrEmptyThereIsNothingToDo(Data.Kind kind) {
        HostBuffer b = Data.buffer(DataType.INT32, kind, 10, new double[10]);
        assertTrue(new LocalCopy(new Region(b, 2), new Region(b, 2), 5, new Scratch(64)).finished());
        assertTrue(LocalCopy.NONE.finished());
        assertFalse(new LocalCopy(new Region(b, 0), new Region(b, 5), 5, new Scratch(64)).finished());
    }
}
