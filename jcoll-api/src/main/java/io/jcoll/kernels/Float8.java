package io.jcoll.kernels;

/**
 * The two 8-bit floating-point formats NCCL reduces (OCP FP8): E4M3 (4
 * exponent bits, 3 mantissa bits, bias 7, no infinity: the top pattern is
 * NaN, the largest finite value 448; overflow saturates to it, as CUDA's
 * saturating conversion does) and E5M2 (IEEE-like, bias 15, with infinity).
 * Conversion from float rounds to nearest even; float holds every sum and
 * product of two FP8 values closely enough (24 >= 2p+2) that rounding once
 * gives the correctly rounded FP8 result.
 */
public enum Float8 {
    E4M3(4, 3, false),
    E5M2(5, 2, true);

    private final int mantissaBits;
    private final int bias;
    private final boolean hasInfinity;
    private final int minNormalExponent;
    private final double maxFinite;
    private final int nan;

    Float8(int exponentBits, int mantissaBits, boolean hasInfinity) {
        this.mantissaBits = mantissaBits;
        this.bias = (1 << (exponentBits - 1)) - 1;
        this.hasInfinity = hasInfinity;
        this.minNormalExponent = 1 - bias;
        int topExponent = (1 << exponentBits) - 1 - bias;
        // E5M2 keeps its all-ones exponent for infinity and NaN; E4M3 uses it for numbers except S.1111.111
        this.maxFinite = hasInfinity
                ? (2 - Math.scalb(1.0, -mantissaBits)) * Math.scalb(1.0, topExponent - 1)
                : (2 - Math.scalb(1.0, 1 - mantissaBits)) * Math.scalb(1.0, topExponent);
        this.nan = hasInfinity ? ((1 << exponentBits) - 1) << mantissaBits | 1 << (mantissaBits - 1) : 0x7f;
    }

    public float toFloat(byte bits) {
        int b = bits & 0xff;
        int sign = (b & 0x80) != 0 ? -1 : 1;
        int exponent = (b >>> mantissaBits) & ((0x80 >>> mantissaBits) - 1);
        int mantissa = b & ((1 << mantissaBits) - 1);
        int allOnes = (0x80 >>> mantissaBits) - 1;
        if (hasInfinity && exponent == allOnes) {
            return mantissa == 0 ? sign * Float.POSITIVE_INFINITY : Float.NaN;
        }
        if (!hasInfinity && exponent == allOnes && mantissa == (1 << mantissaBits) - 1) {
            return Float.NaN;
        }
        if (exponent == 0) {
            return (float) (sign * mantissa * Math.scalb(1.0, minNormalExponent - mantissaBits));
        }
        return (float) (sign * (1 + mantissa * Math.scalb(1.0, -mantissaBits)) * Math.scalb(1.0, exponent - bias));
    }

    public byte fromFloat(float f) {
        if (Float.isNaN(f)) {
            return (byte) nan;
        }
        int sign = Float.floatToRawIntBits(f) < 0 ? 0x80 : 0;
        double a = Math.abs((double) f);
        int exponent = Math.max(a == 0 ? minNormalExponent : Math.getExponent(a), minNormalExponent);
        double quantum = Math.scalb(1.0, exponent - mantissaBits);
        double rounded = Math.rint(a / quantum) * quantum; // exact scaling; rint rounds ties to even
        if (rounded > maxFinite) {
            if (hasInfinity) {
                return (byte) (sign | (((0x80 >>> mantissaBits) - 1) << mantissaBits));
            }
            rounded = maxFinite;
        }
        if (rounded < Math.scalb(1.0, minNormalExponent)) {
            return (byte) (sign | (int) (rounded / Math.scalb(1.0, minNormalExponent - mantissaBits)));
        }
        int e = Math.getExponent(rounded);
        int mantissa = (int) ((rounded / Math.scalb(1.0, e) - 1) * (1 << mantissaBits));
        return (byte) (sign | (e + bias) << mantissaBits | mantissa);
    }
}
