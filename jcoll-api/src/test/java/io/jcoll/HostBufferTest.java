package io.jcoll;

import io.jcoll.testing.Data;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostBufferTest {

    @Test
    void byteBuffersAreReadFromPositionToLimitInNativeOrder() {
        ByteBuffer bb = ByteBuffer.allocate(40).order(ByteOrder.BIG_ENDIAN);
        bb.position(8).limit(24);
        HostBuffer b = HostBuffer.of(bb, DataType.FLOAT32);
        assertEquals(4, b.count());
        Data.write(b, new double[] {1, 2, 3, 4});
        assertEquals(8, bb.position(), "position untouched");
        assertEquals(24, bb.limit(), "limit untouched");
        assertEquals(3f, bb.duplicate().order(ByteOrder.nativeOrder()).getFloat(16));
    }

    @Test
    void sizesThatAreNotWholeElementsAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HostBuffer.of(ByteBuffer.allocate(10), DataType.FLOAT32));
        assertTrue(e.getMessage().contains("10 bytes"), e.getMessage());
    }

    @Test
    void readOnlyBuffersSayTheyAre() {
        assertTrue(HostBuffer.of(ByteBuffer.allocate(8).asReadOnlyBuffer(), DataType.INT32).isReadOnly());
        assertFalse(HostBuffer.of(new int[2]).isReadOnly());
    }

    @Test
    void arraySlicesKnowTheirMemory() {
        float[] a = new float[10];
        HostBuffer whole = HostBuffer.of(a);
        assertTrue(whole.slice(4, 2).sameMemoryAs(HostBuffer.of(a, 4, 2)));
        assertFalse(whole.slice(4, 2).sameMemoryAs(whole.slice(5, 2)));
        assertFalse(whole.sameMemoryAs(HostBuffer.of(new float[10])));
        Data.write(whole.slice(4, 2), new double[] {7, 8});
        assertEquals(7f, a[4]);
        assertEquals(8f, a[5]);
        assertThrows(IndexOutOfBoundsException.class, () -> whole.slice(9, 2));
    }

    @Test
    void arraysMapToTheirTypes() {
        assertEquals(DataType.FLOAT64, HostBuffer.of(new double[1]).type());
        assertEquals(DataType.INT64, HostBuffer.of(new long[1]).type());
        assertEquals(DataType.UINT8, HostBuffer.of(new byte[1], DataType.UINT8).type());
        assertEquals(DataType.BFLOAT16, HostBuffer.of(new short[1], DataType.BFLOAT16).type());
        assertThrows(IllegalArgumentException.class, () -> HostBuffer.of(new short[1], DataType.INT32));
        assertThrows(IllegalArgumentException.class, () -> HostBuffer.of(new byte[1], DataType.FLOAT16));
    }
}
