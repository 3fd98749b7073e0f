package io.jcoll;

/** Element-wise reductions. AVG is the sum divided by the number of ranks. */
public enum ReduceOp {
    SUM, PROD, MIN, MAX, AVG;

    /** Parses {@code sum}, {@code prod}, {@code min}, {@code max}, {@code avg} case-insensitively. */
    public static ReduceOp parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown reduce op '" + text + "'; expected sum, prod, min, max or avg");
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
