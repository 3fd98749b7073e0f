package io.jcoll.probe;

/**
 * One NCCL environment variable the probe considered.
 *
 * @param name       such as {@code NCCL_IB_HCA}
 * @param value      the value derived from the probe, or null when NCCL's own default is right
 * @param reason     why that value, or why none
 * @param userValue  the value the user already set, or null; when set, it is kept and {@code value} is only advice
 */
public record NcclSetting(String name, String value, String reason, String userValue) {

    /** Whether jcoll sets this variable: it derived a value and the user set none. */
    public boolean applies() {
        return value != null && userValue == null;
    }
}
