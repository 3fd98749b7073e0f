package io.jcoll;

/**
 * The element types a collective can carry. Sizes and names follow NCCL; the
 * 16-bit floating-point types are reduced by widening, reducing and rounding
 * to nearest even, never as integer arithmetic on their bits.
 * <pre>{@code
 * DataType t = DataType.parse("bf16");                          // BFLOAT16
 * long bytes = count * t.size();
 * HostBuffer b = HostBuffer.of(new short[count], DataType.BFLOAT16);
 * }</pre>
 */
public enum DataType {
    /** Signed 8-bit integers; sums and products wrap around. */
    INT8(1, "int8", false),
    /** Unsigned 8-bit integers; sums and products wrap around. */
    UINT8(1, "uint8", false),
    /** Signed 32-bit integers. */
    INT32(4, "int32", false),
    /** Signed 64-bit integers. */
    INT64(8, "int64", false),
    /** IEEE 754 binary16. */
    FLOAT16(2, "half", true),
    /** bfloat16: float32's exponent, 7 bits of mantissa. */
    BFLOAT16(2, "bfloat16", true),
    /** IEEE 754 binary32. */
    FLOAT32(4, "float", true),
    /** IEEE 754 binary64. */
    FLOAT64(8, "double", true),
    /** OCP FP8 E4M3 (max 448, no infinity); reduced on NCCL and in Java alike. */
    FLOAT8_E4M3(1, "f8e4m3", true),
    /** OCP FP8 E5M2 (IEEE-like, with infinity). */
    FLOAT8_E5M2(1, "f8e5m2", true);

    private final int size;
    private final String ncclName;
    private final boolean floatingPoint;

    DataType(int size, String ncclName, boolean floatingPoint) {
        this.size = size;
        this.ncclName = ncclName;
        this.floatingPoint = floatingPoint;
    }

    /**
     * Bytes per element.
     *
     * @return bytes per element
     */
    public int size() {
        return size;
    }

    /**
     * The name nccl-tests uses for this type ({@code float}, {@code half}, ...).
     *
     * @return the nccl-tests name
     */
    public String ncclName() {
        return ncclName;
    }

    /** {@return whether this is a floating-point type (reductions round; AVG divides exactly)} */
    public boolean isFloatingPoint() {
        return floatingPoint;
    }

    /**
     * Parses a type by its enum name or nccl-tests name, case-insensitively
     * ({@code float32}, {@code float}, {@code fp16}, {@code half}, {@code bf16}).
     *
     * @param text the name to parse
     * @return the type
     */
    public static DataType parse(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        switch (t) {
            case "fp16": case "f16": return FLOAT16;
            case "bf16": return BFLOAT16;
            case "fp32": case "f32": return FLOAT32;
            case "fp64": case "f64": return FLOAT64;
            case "fp8e4m3": case "e4m3": return FLOAT8_E4M3;
            case "fp8e5m2": case "e5m2": return FLOAT8_E5M2;
            default: break;
        }
        for (DataType d : values()) {
            if (d.ncclName.equals(t) || d.name().toLowerCase(java.util.Locale.ROOT).equals(t)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown data type '" + text + "'; expected one of "
                + "int8, uint8, int32, int64, half, bfloat16, float, double, f8e4m3, f8e5m2");
    }

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
