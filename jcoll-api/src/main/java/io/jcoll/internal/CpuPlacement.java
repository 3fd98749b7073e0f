package io.jcoll.internal;

import io.jcoll.probe.CpuAffinity;
import io.jcoll.probe.GpuDevice;
import io.jcoll.probe.LaunchEnvironment;
import io.jcoll.probe.NvidiaGpus;
import io.jcoll.probe.SystemFiles;
import io.jcoll.probe.Warning;
import io.jcoll.spi.Settings;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a rank may run, against what it needs: too few CPUs for a JVM running collectives, CPUs only on other NUMA
 * nodes than its GPU's, CPUs that other ranks of its host are bound to as well. The masks of a host's ranks travel
 * with the count of the host's ranks ({@link LocalPlacement}), so each rank reads only its own host's.
 */
final class CpuPlacement {

    private final SystemFiles files;
    private final Settings settings;
    private final CpuAffinity mine;
    private final LaunchEnvironment launcher;

    CpuPlacement(Settings settings) {
        this.settings = settings;
        this.files = SystemFiles.from(settings);
        this.mine = CpuAffinity.read(files);
        this.launcher = LaunchEnvironment.detect(settings);
    }

    /** This rank's mask as the kernel writes a CPU list, or empty where it could not be read. */
    String mask() {
        return mine.problem() == null ? CpuAffinity.ranges(mine.allowed()) : "";
    }

    /**
     * Everything wrong with this rank's placement, each with its fix.
     *
     * @param hostMasks  the masks of this host's ranks, by rank ({@link #mask}; empty where unread)
     * @param gpuOrdinal the CUDA device this rank drives, or -1 for none
     */
    List<Warning> warnings(Map<Integer, String> hostMasks, int rank, int gpuOrdinal) {
        List<Warning> found = new ArrayList<>();
        mine.warning(launcher).ifPresent(found::add);
        gpu(gpuOrdinal).ifPresent(g -> mine.numaWarning(g, CpuAffinity.cpusOfNode(files, g.numaNode()), launcher)
                .ifPresent(found::add));
        if (mine.problem() == null) {
            Map<Integer, List<Integer>> masks = new HashMap<>();
            hostMasks.forEach((r, list) -> masks.put(r, CpuAffinity.parseList(list)));
            masks.put(rank, mine.allowed());
            CpuAffinity.overlapWarning(rank, masks, mine.online()).ifPresent(found::add);
        }
        return found;
    }

    /** The GPU behind CUDA device {@code ordinal}: by bus order, through CUDA_VISIBLE_DEVICES when it lists numbers. */
    private Optional<GpuDevice> gpu(int ordinal) {
        if (ordinal < 0) {
            return Optional.empty();
        }
        List<GpuDevice> gpus = NvidiaGpus.read(files);
        int physical = ordinal;
        String visible = settings.get("CUDA_VISIBLE_DEVICES").orElse(null);
        if (visible != null) {
            String[] listed = visible.split(",");
            try {
                physical = ordinal < listed.length ? Integer.parseInt(listed[ordinal].trim()) : -1;
            } catch (NumberFormatException uuids) {
                return Optional.empty(); // GPU-... or MIG-... names: not worth guessing
            }
        }
        return physical >= 0 && physical < gpus.size() ? Optional.of(gpus.get(physical)) : Optional.empty();
    }
}
