package io.jcoll.kernels;

import io.jcoll.DataType;

import java.nio.ByteBuffer;

/**
 * Reads and writes one element of any {@link DataType} as a double, at a byte
 * index of a native-order buffer: for checks, tests and tools, not hot loops.
 * Integers are written as their two's-complement low bits; uint8 reads as 0..255.
 */
public final class Elements {

    private Elements() {
    }

    public static void put(DataType t, ByteBuffer b, int byteIndex, double x) {
        switch (t) {
            case INT8: case UINT8: b.put(byteIndex, (byte) (long) x); break;
            case INT32: b.putInt(byteIndex, (int) (long) x); break;
            case INT64: b.putLong(byteIndex, (long) x); break;
            case FLOAT16: b.putShort(byteIndex, HalfFloats.floatToHalf((float) x)); break;
            case BFLOAT16: b.putShort(byteIndex, HalfFloats.floatToBfloat16((float) x)); break;
            case FLOAT32: b.putFloat(byteIndex, (float) x); break;
            case FLOAT64: b.putDouble(byteIndex, x); break;
            case FLOAT8_E4M3: b.put(byteIndex, Float8.E4M3.fromFloat((float) x)); break;
            case FLOAT8_E5M2: b.put(byteIndex, Float8.E5M2.fromFloat((float) x)); break;
            default: throw new IllegalArgumentException("unknown type " + t);
        }
    }

    public static double get(DataType t, ByteBuffer b, int byteIndex) {
        switch (t) {
            case INT8: return b.get(byteIndex);
            case UINT8: return b.get(byteIndex) & 0xff;
            case INT32: return b.getInt(byteIndex);
            case INT64: return b.getLong(byteIndex);
            case FLOAT16: return HalfFloats.halfToFloat(b.getShort(byteIndex));
            case BFLOAT16: return HalfFloats.bfloat16ToFloat(b.getShort(byteIndex));
            case FLOAT32: return b.getFloat(byteIndex);
            case FLOAT64: return b.getDouble(byteIndex);
            case FLOAT8_E4M3: return Float8.E4M3.toFloat(b.get(byteIndex));
            case FLOAT8_E5M2: return Float8.E5M2.toFloat(b.get(byteIndex));
            default: throw new IllegalArgumentException("unknown type " + t);
        }
    }
}
