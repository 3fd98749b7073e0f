package io.jcoll.probe;

import io.jcoll.spi.Settings;

import java.util.List;

/**
 * Which launcher started this process, told by the variables each one sets.
 *
 * @param name      {@code jcoll launch}, {@code torchrun}, {@code Open MPI}, {@code MPICH/PMI}, {@code Slurm},
 *                  or {@code none}
 * @param evidence  the variables that show it, such as {@code OMPI_COMM_WORLD_RANK=3}
 */
public record LaunchEnvironment(String name, String evidence) {

    private record Signature(String name, List<String> variables) {
    }

    // launchers that set torchrun-style variables; MPI's and Slurm's are JobConfig's, which places ranks by them
    private static final List<Signature> SIGNATURES = List.of(
            new Signature("jcoll launch", List.of("JCOLL_LAUNCHED")),
            new Signature("torchrun", List.of("TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT")));

    public static LaunchEnvironment detect(Settings settings) {
        for (Signature s : SIGNATURES) {
            StringBuilder evidence = new StringBuilder();
            for (String v : s.variables()) {
                settings.get(v).ifPresent(value ->
                        evidence.append(evidence.length() == 0 ? "" : ", ").append(v).append('=').append(value));
            }
            if (evidence.length() > 0) {
                return new LaunchEnvironment(s.name(), evidence.toString());
            }
        }
        String launcher = io.jcoll.bootstrap.JobConfig.launcherOf(settings);
        if (launcher != null) {
            return new LaunchEnvironment(launcher, io.jcoll.bootstrap.JobConfig.placementEvidence(settings));
        }
        if (settings.get("RANK").isPresent() && settings.get("WORLD_SIZE").isPresent()) {
            return new LaunchEnvironment("environment variables", "RANK and WORLD_SIZE are set");
        }
        return new LaunchEnvironment("none", "no launcher's variables are set");
    }
}
