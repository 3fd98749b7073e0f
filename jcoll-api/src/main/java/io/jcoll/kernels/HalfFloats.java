package io.jcoll.kernels;

/**
 * Conversions between float and the two 16-bit floating-point formats, rounding
 * to nearest even. Reducing in float and rounding once is exact for sums,
 * products and quotients of two 16-bit values (float has at least 2p+2 bits
 * for both formats), so results match a correctly rounded 16-bit operation.
 */
public final class HalfFloats {

    private HalfFloats() {
    }

    /** IEEE 754 binary16 bits to float (exact). */
    public static float halfToFloat(short h) {
        int bits = h & 0xffff;
        int sign = (bits & 0x8000) << 16;
        int exp = (bits >>> 10) & 0x1f;
        int mant = bits & 0x3ff;
        if (exp == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
        }
        if (exp == 0) {
            float v = mant * 0x1p-24f;
            return sign != 0 ? -v : v;
        }
        return Float.intBitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
    }

    /** Float to IEEE 754 binary16 bits, rounding to nearest even; overflow gives infinity. */
    public static short floatToHalf(float f) {
        int bits = Float.floatToRawIntBits(f);
        int sign = (bits >>> 16) & 0x8000;
        int abs = bits & 0x7fffffff;
        if (abs >= 0x7f800000) {
            // infinity keeps a zero mantissa; NaN stays a (quiet) NaN
            return (short) (sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 | ((abs >>> 13) & 0x3ff) : 0));
        }
        if (abs >= 0x477ff000) {
            return (short) (sign | 0x7c00); // at or above 65520: rounds to infinity
        }
        if (abs < 0x38800000) {
            // below 2^-14: a subnormal half, in units of 2^-24; the scaling is exact in double
            int m = (int) Math.rint(Float.intBitsToFloat(abs) * 0x1p24);
            return (short) (sign | m);
        }
        int half = (((abs >>> 23) - 112) << 10) | ((abs >>> 13) & 0x3ff);
        int rest = abs & 0x1fff;
        if (rest > 0x1000 || (rest == 0x1000 && (half & 1) != 0)) {
            half++; // a carry into the exponent is still the right encoding
        }
        return (short) (sign | half);
    }

    /** bfloat16 bits to float (exact). */
    public static float bfloat16ToFloat(short b) {
        return Float.intBitsToFloat((b & 0xffff) << 16);
    }

    /** Float to bfloat16 bits, rounding to nearest even; NaN stays NaN. */
    public static short floatToBfloat16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7fffffff) > 0x7f800000) {
            return (short) ((bits >>> 16) | 0x40);
        }
        int rounding = 0x7fff + ((bits >>> 16) & 1);
        return (short) ((bits + rounding) >>> 16);
    }
}
