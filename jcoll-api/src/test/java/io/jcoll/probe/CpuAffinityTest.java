package io.jcoll.probe;

import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A process's CPU mask read from fixture trees laid out like {@code /}, and the trap it sets. */
class CpuAffinityTest {

    @TempDir
    Path root;

    private CpuAffinity machine(String allowedList, String online) throws IOException {
        Files.createDirectories(root.resolve("proc/self"));
        Files.createDirectories(root.resolve("sys/devices/system/cpu"));
        if (allowedList != null) {
            Files.writeString(root.resolve("proc/self/status"), "Name:\tjava\nCpus_allowed:\tff\nCpus_allowed_list:\t"
                    + allowedList + "\nMems_allowed_list:\t0\n");
        }
        if (online != null) {
            Files.writeString(root.resolve("sys/devices/system/cpu/online"), online + "\n");
        }
        return CpuAffinity.read(SystemFiles.at(root));
    }

    private static LaunchEnvironment launcher(Map<String, String> env) {
        return LaunchEnvironment.detect(Settings.of(env));
    }

    @Test
    void listsOfRangesAndSinglesAreRead() throws IOException {
        CpuAffinity a = machine("0-3,8,10-11", "0-31");
        assertEquals(List.of(0, 1, 2, 3, 8, 10, 11), a.allowed());
        assertEquals(32, a.online());
        assertNull(a.problem());
        assertTrue(a.warning(launcher(Map.of())).isEmpty(), "seven CPUs are enough");
    }

    @Test
    void oneCpuOfManyUnderMpirunIsATrapWithMpirunsFix() throws IOException {
        CpuAffinity a = machine("5", "0-31");
        Warning w = a.warning(launcher(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2",
                "OMPI_COMM_WORLD_LOCAL_RANK", "0", "OMPI_COMM_WORLD_LOCAL_SIZE", "2"))).orElseThrow();
        assertTrue(w.problem().contains("may run on 1 CPU (CPU 5) of the machine's 32"), w.problem());
        assertTrue(w.fix().contains("--bind-to none"), w.fix());
        assertTrue(w.fix().contains("--map-by ppr:N:node:PE=K"), w.fix());
    }

    @Test
    void eachLauncherGetsItsOwnFix() throws IOException {
        CpuAffinity a = machine("0", "0-1");
        assertTrue(a.warning(launcher(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "2", "SLURM_LOCALID", "0", "SLURM_STEP_ID", "0"))).orElseThrow().fix()
                .contains("--cpus-per-task"));
        assertTrue(a.warning(launcher(Map.of("PMI_RANK", "0", "PMI_SIZE", "2", "MPI_LOCALRANKID", "0", "MPI_LOCALNRANKS", "2"))).orElseThrow().fix()
                .contains("-bind-to none"));
        assertTrue(a.warning(launcher(Map.of())).orElseThrow().fix().contains("taskset"));
    }

    @Test
    void aMachineWithOneCpuHasNothingToFix() throws IOException {
        assertTrue(machine("0", "0").warning(launcher(Map.of())).isEmpty());
    }

    @Test
    void unreadableOrMalformedMasksAreReportedNeverGuessed() throws IOException {
        assertTrue(machine(null, "0-3").problem().contains("no Cpus_allowed_list"));
        for (String bad : new String[] {"", "0-", "a", "3-1", "1-2-3", "0,,2", "-1"}) {
            CpuAffinity a = machine(bad, "0-3");
            assertTrue(a.allowed().isEmpty() && a.problem() != null, "'" + bad + "' gave " + a);
            assertTrue(a.warning(launcher(Map.of())).isEmpty(), "no warning from a mask that was not read");
        }
    }

    private static final GpuDevice GPU_ON_NODE_0 = new GpuDevice(0, "NVIDIA H200", "0000:18:00.0",
            "/sys/devices/pci0000:17/0000:18:00.0", 0);

    @Test
    void cpusOnlyOnAnotherNodeThanTheGpuAreAFarBinding() throws IOException {
        machine("32-35", "0-63");
        Files.createDirectories(root.resolve("sys/devices/system/node/node0"));
        Files.writeString(root.resolve("sys/devices/system/node/node0/cpulist"), "0-31\n");
        List<Integer> node0 = CpuAffinity.cpusOfNode(SystemFiles.at(root), 0);
        assertEquals(32, node0.size());
        Warning w = CpuAffinity.read(SystemFiles.at(root)).numaWarning(GPU_ON_NODE_0, node0,
                launcher(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2", "OMPI_COMM_WORLD_LOCAL_RANK",
                        "0", "OMPI_COMM_WORLD_LOCAL_SIZE", "2"))).orElseThrow();
        assertTrue(w.problem().contains("CPUs 32-35, none of them on NUMA node 0 (CPUs 0-31), where its GPU "
                + "0000:18:00.0 is"), w.problem());
        assertTrue(w.fix().contains("--map-by numa"), w.fix());
        assertTrue(machine("30-33", "0-63").numaWarning(GPU_ON_NODE_0, node0, launcher(Map.of())).isEmpty(),
                "a mask that reaches the GPU's node is near enough");
        assertTrue(machine("32-35", "0-63").numaWarning(GPU_ON_NODE_0, List.of(), launcher(Map.of())).isEmpty(),
                "an unknown node says nothing");
        assertTrue(CpuAffinity.cpusOfNode(SystemFiles.at(root), 7).isEmpty(), "a node that is not there has no CPUs");
        assertTrue(new CpuAffinity(List.of(), 64, "unreadable").numaWarning(GPU_ON_NODE_0, node0, launcher(Map.of()))
                .isEmpty(),
                "an unread mask says nothing");
    }

    @Test
    void aStarvedMaskWidensToItsGpusNodeElseItsOwnNodeElseTheMachine() throws IOException {
        machine("40", "0-63");
        node(0, "0-31");
        node(1, "32-63");
        SystemFiles files = SystemFiles.at(root);
        Map<Integer, List<Integer>> nodes = CpuAffinity.nodes(files);
        List<Integer> online = CpuAffinity.onlineCpus(files);
        assertEquals(Map.of(0, range(0, 32), 1, range(32, 64)), nodes);
        CpuAffinity one = CpuAffinity.read(files);
        // bound to one CPU on node 1 while its GPU is on node 0: the GPU's node, which also ends the far binding
        CpuAffinity.Widening w = one.widenedTo(GPU_ON_NODE_0, nodes, online).orElseThrow();
        assertEquals(range(0, 32), w.cpus());
        assertEquals("NUMA node 0, where its GPU 0000:18:00.0 is", w.where());
        w = one.widenedTo(null, nodes, online).orElseThrow();
        assertEquals(range(32, 64), w.cpus(), "no GPU: the node of the CPU it has");
        assertEquals("NUMA node 1, the node of the CPU it had", w.where());
        assertEquals(online, one.widenedTo(null, Map.of(), online).orElseThrow().cpus(),
                "no nodes listed: the machine's CPUs");
        assertEquals(range(32, 64), one.widenedTo(GPU_ON_NODE_0, Map.of(0, List.of(7), 1, range(32, 64)), online)
                .orElseThrow().cpus(), "a GPU node of one CPU is no better than the binding");
        node(2, "64");
        machine("64", "0-64");
        assertEquals(range(0, 65), CpuAffinity.read(files).widenedTo(null, CpuAffinity.nodes(files),
                CpuAffinity.onlineCpus(files)).orElseThrow().cpus(), "a node of one CPU: the machine's CPUs");
        assertTrue(machine("2-3", "0-63").widenedTo(GPU_ON_NODE_0, nodes, online).isEmpty(), "two CPUs are enough");
        assertTrue(machine("0", "0").widenedTo(null, Map.of(0, List.of(0)), List.of(0)).isEmpty(),
                "nothing wider on a machine of one CPU");
        assertTrue(new CpuAffinity(List.of(), 64, "unreadable").widenedTo(GPU_ON_NODE_0, nodes, online).isEmpty(),
                "an unread mask is never widened");
    }

    private void node(int n, String cpus) throws IOException {
        Files.createDirectories(root.resolve("sys/devices/system/node/node" + n));
        Files.writeString(root.resolve("sys/devices/system/node/node" + n + "/cpulist"), cpus + "\n");
    }

    private static List<Integer> range(int from, int to) {
        return java.util.stream.IntStream.range(from, to).boxed().toList();
    }

    @Test
    void ranksBoundToSharedCpusAreToldWhoTheyShareWith() {
        Map<Integer, List<Integer>> masks = Map.of(0, List.of(0, 1, 2, 3), 1, List.of(2, 3, 4, 5), 2,
                List.of(6, 7), 3, List.copyOf(java.util.stream.IntStream.range(0, 16).boxed().toList()));
        Warning w = CpuAffinity.overlapWarning(0, masks, 16).orElseThrow();
        assertTrue(w.problem().contains("bound to CPUs 0-3, which other ranks on this host are bound to as well: "
                + "rank 1 (CPUs 2-5, sharing 2-3)"), w.problem());
        assertTrue(!w.problem().contains("rank 3"), "an unbound rank shares by design: " + w.problem());
        assertTrue(CpuAffinity.overlapWarning(2, masks, 16).isEmpty(), "disjoint masks");
        assertTrue(CpuAffinity.overlapWarning(3, masks, 16).isEmpty(), "an unbound rank is not warned");
        assertTrue(CpuAffinity.overlapWarning(0, Map.of(0, List.of(0, 1)), 16).isEmpty(), "alone on its host");
        assertEquals("0-3,8,10-11", CpuAffinity.ranges(List.of(0, 1, 2, 3, 8, 10, 11)));
    }

    @Test
    void theLiveMachineIsRead() {
        CpuAffinity a = CpuAffinity.read(SystemFiles.live());
        assertNull(a.problem(), String.valueOf(a.problem()));
        assertTrue(!a.allowed().isEmpty() && a.online() >= a.allowed().size(), a.toString());
    }
}
