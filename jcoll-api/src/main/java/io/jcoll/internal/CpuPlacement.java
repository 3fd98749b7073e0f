package io.jcoll.internal;

import io.jcoll.bootstrap.Store;
import io.jcoll.probe.CpuAffinity;
import io.jcoll.probe.GpuDevice;
import io.jcoll.probe.LaunchEnvironment;
import io.jcoll.probe.NvidiaGpus;
import io.jcoll.probe.SystemFiles;
import io.jcoll.probe.Warning;
import io.jcoll.spi.Settings;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a rank may run, against what it needs: too few CPUs for a JVM running collectives, CPUs only on other NUMA
 * nodes than its GPU's, CPUs that other ranks of its host are bound to as well. The masks of a host's ranks meet
 * in the store under the host's name ({@link #publish} before the ranks' first exchange, {@link #warnings} after
 * it, when every rank has published), so each rank reads only its own host's.
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

    private static String key(long hostId, int localRank) {
        return "cpus/host" + Long.toHexString(hostId) + "/" + localRank;
    }

    /** Puts this rank's mask where the other ranks of its host will look. */
    void publish(Store store, long hostId, int localRank, int rank) {
        if (mine.problem() == null) {
            store.set(key(hostId, localRank), (rank + "|" + CpuAffinity.ranges(mine.allowed()))
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * Everything wrong with this rank's placement, each with its fix.
     *
     * @param gpuOrdinal the CUDA device this rank drives, or -1 for none
     */
    List<Warning> warnings(Store store, long hostId, int rank, int localSize, int gpuOrdinal) {
        List<Warning> found = new ArrayList<>();
        mine.warning(launcher).ifPresent(found::add);
        gpu(gpuOrdinal).ifPresent(g -> mine.numaWarning(g, CpuAffinity.cpusOfNode(files, g.numaNode()), launcher)
                .ifPresent(found::add));
        Map<Integer, List<Integer>> masks = new HashMap<>();
        for (int local = 0; local < localSize && mine.problem() == null; local++) {
            // every rank published before the exchange that preceded this: a missing key is a rank whose mask
            // could not be read, or a LOCAL_WORLD_SIZE that does not match the host, and is passed over
            store.get(key(hostId, local), Duration.ZERO).ifPresent(v -> {
                String[] f = new String(v, StandardCharsets.UTF_8).split("\\|", 2);
                if (f.length == 2) {
                    masks.put(Integer.parseInt(f[0]), CpuAffinity.parseList(f[1]));
                }
            });
        }
        masks.put(rank, mine.allowed());
        CpuAffinity.overlapWarning(rank, masks, mine.online()).ifPresent(found::add);
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
