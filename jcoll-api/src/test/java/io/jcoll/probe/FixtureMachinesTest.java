package io.jcoll.probe;

import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The probe and the advisor on the fixture trees of five real kinds of machine
 * ({@code src/test/machines/make-machines.sh} writes them).
 */
class FixtureMachinesTest {

    static SystemFiles machine(String name) {
        return SystemFiles.at(Path.of("src/test/machines", name));
    }

    static Settings env(String... keyValues) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return Settings.of(m);
    }

    static NcclSetting setting(NcclAdvice advice, String name) {
        return advice.settings().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    static void assertWarned(NcclAdvice advice, String... fragments) {
        assertTrue(advice.warnings().stream().anyMatch(w -> {
            for (String f : fragments) {
                if (!w.toString().contains(f)) {
                    return false;
                }
            }
            return true;
        }), "expected a warning containing " + List.of(fragments) + " in " + advice.warnings());
    }

    @Test
    void eightGpuNodeWithEightInfinibandAdapters() {
        Settings env = env("MASTER_ADDR", "10.10.4.2");
        Machine m = Machine.probe(machine("dgx-h100-8ib"), env);
        assertEquals("570.86.15", m.driverVersion());
        assertEquals(8, m.gpus().size());
        assertEquals("NVIDIA H100 80GB HBM3", m.gpus().get(0).model());
        assertEquals(8, m.rdmaAdapters().size());
        assertEquals(8, m.activePorts().size());
        RdmaPort p = m.activePorts().get(3);
        assertEquals("mlx5_3:1", p.label());
        assertEquals("InfiniBand", p.kind());
        assertEquals("400 Gb/sec (4X NDR)", p.rate());
        assertEquals("5: LinkUp", p.physicalState());
        assertEquals(-1, p.roceV2GidIndex());
        assertEquals("nvidia_peermem (/sys/module/nvidia_peermem)", m.peerMemory());
        // every GPU is paired with the adapter on its own PCIe switch
        List<Machine.GpuAffinity> affinity = m.gpuAffinity();
        for (int i = 0; i < 8; i++) {
            assertEquals("mlx5_" + i, affinity.get(i).adapter().name());
            assertEquals(PciDistance.PIX, affinity.get(i).distance());
        }
        assertEquals(PciDistance.SYS, PciDistance.between(m.gpus().get(0).pciPath(), m.gpus().get(0).numaNode(),
                m.rdmaAdapters().get(7).pciPath(), m.rdmaAdapters().get(7).numaNode()));
        assertEquals(PciDistance.NODE, PciDistance.between(m.gpus().get(0).pciPath(), 0,
                m.rdmaAdapters().get(2).pciPath(), 0));
        assertEquals("eno1", m.master().iface());

        NcclAdvice advice = NcclAdvisor.advise(m, env);
        assertEquals("=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1",
                setting(advice, "NCCL_IB_HCA").value());
        assertNull(setting(advice, "NCCL_IB_GID_INDEX").value());
        assertEquals("=eno1", setting(advice, "NCCL_SOCKET_IFNAME").value());
        assertEquals("PXB", setting(advice, "NCCL_NET_GDR_LEVEL").value());
        assertEquals(List.of(), advice.warnings());
        assertEquals(3, advice.applied().size());
    }

    @Test
    void roceNodeAtMtu9000() {
        Settings env = env("MASTER_ADDR", "10.20.0.7");
        Machine m = Machine.probe(machine("roce-cx6-mtu9000"), env);
        assertEquals(4, m.gpus().size());
        RdmaPort p = m.activePorts().get(0);
        assertEquals("RoCE", p.kind());
        assertEquals(3, p.roceV2GidIndex(), "the RoCE v2 GID carrying the IPv4 address");
        assertEquals("ens1f0np0", p.netDevice());
        assertEquals("ens1f0np0", m.master().iface(), "10.20.0.0/24 is routed through the RoCE interface");
        assertEquals(List.of(PciDistance.PIX, PciDistance.PIX, PciDistance.PHB, PciDistance.PHB),
                m.gpuAffinity().stream().map(Machine.GpuAffinity::distance).toList());

        NcclAdvice advice = NcclAdvisor.advise(m, env);
        assertEquals("=mlx5_0:1", setting(advice, "NCCL_IB_HCA").value());
        assertEquals("3", setting(advice, "NCCL_IB_GID_INDEX").value());
        assertEquals("=ens1f0np0", setting(advice, "NCCL_SOCKET_IFNAME").value());
        assertEquals("PHB", setting(advice, "NCCL_NET_GDR_LEVEL").value(), "GPUs 2 and 3 reach the NIC through the host bridge");
        assertEquals(List.of(), advice.warnings());

        // a master on the management network is reached through eno1 instead
        assertEquals("=eno1", setting(NcclAdvisor.advise(Machine.probe(machine("roce-cx6-mtu9000"),
                env("MASTER_ADDR", "192.168.1.20")), env), "NCCL_SOCKET_IFNAME").value());
    }

    @Test
    void roceNodeWithMtu1500AndNoPeerMemory() {
        Machine m = Machine.probe(machine("roce-mtu1500-nopeermem"), env());
        assertNull(m.peerMemory());
        assertNull(m.master(), "outside a job there is no master to route to");
        NcclAdvice advice = NcclAdvisor.advise(m, env());
        assertWarned(advice, "ens1f0np0", "MTU 1500", "1024 bytes", "mtu 9000");
        assertWarned(advice, "no peer-memory module", "modprobe nvidia_peermem");
        assertNull(setting(advice, "NCCL_NET_GDR_LEVEL").value());
        assertNull(setting(advice, "NCCL_SOCKET_IFNAME").value());
        assertEquals("3", setting(advice, "NCCL_IB_GID_INDEX").value());
        assertEquals(2, advice.warnings().size(), advice.warnings().toString());
    }

    @Test
    void nodeWhoseOnlyPortIsDown() {
        Machine m = Machine.probe(machine("ib-port-down"), env("MASTER_ADDR", "10.0.0.1"));
        assertEquals(1, m.rdmaAdapters().size());
        assertTrue(m.activePorts().isEmpty());
        NcclAdvice advice = NcclAdvisor.advise(m, env("MASTER_ADDR", "10.0.0.1"));
        assertWarned(advice, "mlx5_0:1", "1: DOWN", "2: Polling", "cable");
        assertNull(setting(advice, "NCCL_IB_HCA").value());
        assertNull(setting(advice, "NCCL_NET_GDR_LEVEL").value());
        assertEquals("=eth0", setting(advice, "NCCL_SOCKET_IFNAME").value());
        assertEquals(1, advice.warnings().size());
    }

    @Test
    void cloudVmWithEthernetOnly() {
        Settings env = env("MASTER_ADDR", "172.31.40.9");
        Machine m = Machine.probe(machine("cloud-vm-ethernet"), env);
        assertEquals(1, m.gpus().size());
        assertEquals("NVIDIA A10G", m.gpus().get(0).model());
        assertTrue(m.rdmaAdapters().isEmpty());
        NetInterface ens5 = m.networkInterface("ens5").orElseThrow();
        assertEquals(9001, ens5.mtu());
        assertEquals(-1, ens5.speedMbps());
        assertTrue(m.networkInterface("lo").orElseThrow().loopback());
        NcclAdvice advice = NcclAdvisor.advise(m, env);
        assertEquals("=ens5", setting(advice, "NCCL_SOCKET_IFNAME").value());
        assertEquals(1, advice.applied().size());
        assertEquals(List.of(), advice.warnings());
        assertEquals("lo", Machine.probe(machine("cloud-vm-ethernet"), env("MASTER_ADDR", "127.0.0.1")).master().iface());
    }

    @Test
    void variablesTheUserSetAreKeptAndChecked() {
        Settings env = env("MASTER_ADDR", "10.10.4.2", "NCCL_IB_HCA", "mlx5_0", "NCCL_IB_DISABLE", "1");
        NcclAdvice advice = NcclAdvisor.advise(Machine.probe(machine("dgx-h100-8ib"), env), env);
        NcclSetting hca = setting(advice, "NCCL_IB_HCA");
        assertEquals("mlx5_0", hca.userValue());
        assertTrue(!hca.applies() && hca.value() != null, "derived, reported, not applied");
        assertWarned(advice, "NCCL_IB_DISABLE=1", "8 RDMA port(s) are ACTIVE");

        Settings wrongIf = env("MASTER_ADDR", "172.31.40.9", "NCCL_SOCKET_IFNAME", "eth0,docker");
        NcclAdvice cloud = NcclAdvisor.advise(Machine.probe(machine("cloud-vm-ethernet"), wrongIf), wrongIf);
        assertWarned(cloud, "eth0 matches no interface", "docker matches only interfaces that are down (docker0)",
                "ens5 reaches the master");
        assertEquals("eth0,docker", setting(cloud, "NCCL_SOCKET_IFNAME").userValue());

        for (String fine : List.of("ens", "=ens5", "^docker,lo")) {
            Settings ok = env("NCCL_SOCKET_IFNAME", fine);
            assertEquals(List.of(), NcclAdvisor.advise(Machine.probe(machine("cloud-vm-ethernet"), ok), ok).warnings(), fine);
        }
        Settings none = env("NCCL_SOCKET_IFNAME", "^ens,lo");
        assertWarned(NcclAdvisor.advise(Machine.probe(machine("cloud-vm-ethernet"), none), none), "excludes every interface");
    }

    /**
     * The checks the RDMA setup guides ask for by hand: a node where DMA-BUF serves GPUDirect RDMA without the
     * peer-memory module (not a fault), at the distribution's locked-memory default and without the mlx5 provider.
     */
    @Test
    void roceNodeWithDmaBufAtTheDistributionsDefaults() {
        Settings env = env("MASTER_ADDR", "10.30.0.1");
        Machine m = Machine.probe(machine("roce-dmabuf-defaults"), env);
        assertNull(m.peerMemory());
        assertTrue(m.dmaBuf().supported(), m.dmaBuf().why());
        assertTrue(m.dmaBuf().why().contains("kernel 6.8") && m.dmaBuf().why().contains("open kernel modules"),
                m.dmaBuf().why());
        assertEquals(65536, m.limits().memlockSoft());
        assertTrue(m.rdmaLibraries().verbs().endsWith("usr/lib/x86_64-linux-gnu/libibverbs.so.1"));
        assertEquals(List.of("the mlx5 provider (libmlx5-rdmav*.so / libmlx5.so.1)"), m.rdmaLibraries().missing());

        NcclAdvice advice = NcclAdvisor.advise(m, env);
        assertWarned(advice, "locked-memory limit (ulimit -l) is 64 KiB", "ulimit -l unlimited");
        assertWarned(advice, "mlx5 provider", "No device found", "ibverbs-providers");
        assertTrue(advice.warnings().stream().noneMatch(w -> w.problem().contains("peer-memory")),
                "DMA-BUF serves GPUDirect RDMA here: " + advice.warnings());
        assertTrue(advice.warnings().stream().noneMatch(w -> w.problem().contains("socket buffer")),
                "collectives go over RDMA here: " + advice.warnings());
        assertTrue(setting(advice, "NCCL_NET_GDR_LEVEL").value() != null, "DMA-BUF serves GPUDirect RDMA: a level applies");
        assertEquals(2, advice.warnings().size(), advice.warnings().toString());

        // NCCL older than 2.19 cannot use DMA-BUF, whatever kernel and driver allow
        assertTrue(!m.dmaBuf().withNccl("2.18.5").supported() && m.dmaBuf().withNccl("2.28.3").supported());
    }

    @Test
    void peerMemoryWarningSaysWhyDmaBufCannotServe() {
        Machine m = Machine.probe(machine("roce-mtu1500-nopeermem"), env());
        assertTrue(!m.dmaBuf().supported() && m.dmaBuf().why().contains("kernel 5.4 (older than 5.12)"), m.dmaBuf().why());
        assertWarned(NcclAdvisor.advise(m, env()), "no peer-memory module", "kernel 5.4", "open kernel modules on kernel 5.12+");
    }

    @Test
    void untunedSocketBuffersOnAnEthernetNodeAreWarned() {
        Settings env = env("MASTER_ADDR", "192.168.0.9");
        Machine m = Machine.probe(machine("ethernet-untuned"), env);
        assertNull(m.rdmaLibraries(), "no adapters: no libraries are needed");
        NcclAdvice advice = NcclAdvisor.advise(m, env);
        assertWarned(advice, "net.core.rmem_max=212992", "net.core.wmem_max=212992", "sysctl -w");
        assertEquals(1, advice.warnings().size(), advice.warnings().toString());
        // one host over loopback: buffers do not matter
        Settings local = env("MASTER_ADDR", "127.0.0.1");
        assertEquals(List.of(), NcclAdvisor.advise(Machine.probe(machine("ethernet-untuned"), local), local).warnings());
    }

    @Test
    void bbrOnAnEthernetNodeIsWarnedBetweenHostsOnly() {
        Settings env = env("MASTER_ADDR", "10.128.0.7");
        Machine m = Machine.probe(machine("ethernet-bbr"), env);
        assertEquals("bbr", m.congestion().algorithm());
        assertEquals("ens4", m.master().iface());
        NcclAdvice advice = NcclAdvisor.advise(m, env);
        assertWarned(advice, "congestion control is bbr", "PROBE_RTT", "net.ipv4.tcp_congestion_control=cubic");
        assertEquals(1, advice.warnings().size(), advice.warnings().toString());
        // one host over loopback: no stream waits long enough to probe
        Settings local = env("MASTER_ADDR", "127.0.0.1");
        assertEquals(List.of(), NcclAdvisor.advise(Machine.probe(machine("ethernet-bbr"), local), local).warnings());
        // cubic, as most nodes are installed, and a machine whose file cannot be read: nothing to say
        Machine cubic = Machine.probe(machine("ethernet-untuned"), env("MASTER_ADDR", "192.168.0.9"));
        assertEquals("cubic", cubic.congestion().algorithm());
        assertTrue(NcclAdvisor.advise(cubic, env("MASTER_ADDR", "192.168.0.9")).warnings().stream()
                .noneMatch(w -> w.problem().contains("congestion")));
        Machine unknown = Machine.probe(SystemFiles.at(Path.of("src/test/machines/no-such-machine")), env);
        assertNull(unknown.congestion().algorithm());
        assertEquals("unknown", unknown.congestion().describe());
        assertTrue(NcclAdvisor.advise(unknown, env).warnings().stream().noneMatch(w -> w.problem().contains("congestion")));
    }

    @Test
    void limitsAreReadAsTheKernelWritesThem() {
        Limits tuned = Machine.probe(machine("dgx-h100-8ib"), env()).limits();
        assertEquals(Limits.UNLIMITED, tuned.memlockSoft());
        assertEquals(67108864, tuned.tcpRmemMax());
        assertTrue(tuned.smallSocketBuffers().isEmpty());
        Limits none = Machine.probe(SystemFiles.at(Path.of("src/test/machines/no-such-machine")), env()).limits();
        assertEquals(Limits.UNKNOWN, none.memlockSoft());
        assertTrue(!none.memlockTooSmall() && none.smallSocketBuffers().isEmpty(), "unknown is not too small");
        assertEquals("64 KiB", Limits.describe(65536));
        assertEquals("unlimited", Limits.describe(Limits.UNLIMITED));
    }

    @Test
    void rdmaFrameSizes() {
        assertEquals(1024, NcclAdvisor.rdmaFrame(1500));
        assertEquals(2048, NcclAdvisor.rdmaFrame(4000));
        assertEquals(4096, NcclAdvisor.rdmaFrame(4200));
        assertEquals(4096, NcclAdvisor.rdmaFrame(9000));
        assertEquals(256, NcclAdvisor.rdmaFrame(300));
    }
}
