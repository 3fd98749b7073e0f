package io.jcoll;

/**
 * Element-wise reductions. AVG is the sum divided by the number of ranks.
 * <pre>{@code
 * comm.allReduce(HostBuffer.of(grads), ReduceOp.AVG);
 * }</pre>
 */
public enum ReduceOp {
    /** The sum. */
    SUM,
    /** The product. */
    PROD,
    /** The smallest value. */
    MIN,
    /** The largest value. */
    MAX,
    /** The sum divided by the number of ranks (integers: truncated). */
    AVG;

    /**
     * Parses {@code sum}, {@code prod}, {@code min}, {@code max}, {@code avg} case-insensitively.
     *
     * @param text the name to parse
     * @return the reduction
     */
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
