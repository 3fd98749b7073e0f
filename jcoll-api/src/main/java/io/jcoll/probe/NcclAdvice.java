package io.jcoll.probe;

import java.util.List;

/**
 * What the probe says NCCL should be told, and the traps it found.
 *
 * @param settings every variable considered, derived or not
 * @param warnings known traps, each with its fix
 */
public record NcclAdvice(List<NcclSetting> settings, List<Warning> warnings) {

    public NcclAdvice {
        settings = List.copyOf(settings);
        warnings = List.copyOf(warnings);
    }

    /** The variables jcoll sets: derived, and not already set by the user. */
    public List<NcclSetting> applied() {
        return settings.stream().filter(NcclSetting::applies).toList();
    }
}
