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
 *
 * <p>A mask of one CPU (mpirun's default binding with two ranks a node) is widened to the CPUs of the rank's GPU's
 * NUMA node, or of its own CPU's node, before the transport starts its threads ({@code JCOLL_CPU_AFFINITY=widen},
 * the default): the binding would only starve the JVM, and that node is where {@code --bind-to numa} would have put
 * it. {@code keep} leaves the mask as the launcher set it, with the warning.
 */
final class CpuPlacement {

    /** The setting that says whether a one-CPU mask is widened. */
    static final String POLICY = "JCOLL_CPU_AFFINITY";

    private final SystemFiles files;
    private final Settings settings;
    private final CpuAffinity mine;
    private final LaunchEnvironment launcher;
    private final boolean widen;
    private Warning widening;   // what widening did or why it could not; null where it did not run
    private boolean widened;    // the mask is now the wider one

    CpuPlacement(Settings settings) {
        this.settings = settings;
        this.files = SystemFiles.from(settings);
        this.mine = CpuAffinity.read(files);
        this.launcher = LaunchEnvironment.detect(settings);
        this.widen = widens(settings);
    }

    /**
     * Whether {@code JCOLL_CPU_AFFINITY} asks for widening; checked before anything opens.
     *
     * @throws IllegalArgumentException for a value other than {@code widen} or {@code keep}
     */
    static boolean widens(Settings settings) {
        String value = settings.get(POLICY).orElse("widen").trim();
        return switch (value) {
            case "widen" -> true;
            case "keep" -> false;
            default -> throw new IllegalArgumentException(POLICY + "=" + value + " is neither 'widen' (give a rank "
                    + "bound to one CPU its node's CPUs, the default) nor 'keep' (leave the launcher's binding)");
        };
    }

    /**
     * Widens this process's mask when it is too narrow and the policy allows, on the running machine only (a
     * fixture root describes another machine). Call it before the transport starts threads: they inherit the mask.
     *
     * @param gpuOrdinal the CUDA device this rank will drive if a GPU transport is chosen, or -1
     */
    void widenIfStarved(int gpuOrdinal) {
        if (!widen || !files.isLive()) {
            return;
        }
        Optional<CpuAffinity.Widening> target = mine.widenedTo(gpu(gpuOrdinal).orElse(null), CpuAffinity.nodes(files),
                CpuAffinity.onlineCpus(files));
        if (target.isEmpty()) {
            return;
        }
        String was = "this process was bound to " + CpuAffinity.describe(mine.allowed()) + " of the machine's "
                + mine.online()
                + (launcher.name().equals("none") ? "" : " (under " + launcher.name() + ")")
                + ", where a JVM running collectives starves";
        String fix = "give each rank several CPUs at the launcher, which also sizes the JVM's own threads for them: "
                + CpuAffinity.fixFor(launcher) + " " + POLICY + "=keep keeps the launcher's binding.";
        AffinityWidener.Outcome outcome = AffinityWidener.widen(target.get().cpus());
        widened = outcome.problem() == null;
        widening = new Warning(was + (widened ? "; jcoll widened every thread of it to CPUs "
                + CpuAffinity.ranges(outcome.now()) : "; jcoll could not widen it to CPUs "
                + CpuAffinity.ranges(target.get().cpus())) + " (" + target.get().where() + ")"
                + (widened ? "." : ": " + outcome.problem() + "."), fix);
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
        if (widened) {
            // the launcher's binding is gone: what it would have caused, CPUs far from the GPU or shared with the
            // host's other ranks, no longer describes this rank
            return List.of(widening);
        }
        List<Warning> found = new ArrayList<>();
        if (widening != null) {
            found.add(widening); // the one-CPU trap, with why it is still there
        } else {
            mine.warning(launcher).ifPresent(found::add);
        }
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
