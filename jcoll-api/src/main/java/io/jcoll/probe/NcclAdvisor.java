package io.jcoll.probe;

import io.jcoll.spi.Settings;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Derives the NCCL settings that the setup guides tell users to work out by
 * hand, and finds the traps they warn about. A variable the user already set
 * is never overridden; its derived value is still reported, so a wrong one
 * can be noticed.
 */
public final class NcclAdvisor {

    /** The Ethernet MTU RoCE needs for its largest (4096-byte) RDMA frames. */
    static final int ROCE_MTU = 9000;

    private NcclAdvisor() {
    }

    public static NcclAdvice advise(Machine m, Settings settings) {
        List<NcclSetting> derived = new ArrayList<>();
        List<Warning> warnings = new ArrayList<>();
        List<RdmaPort> active = m.activePorts();
        boolean ibDisabled = "1".equals(settings.get("NCCL_IB_DISABLE").orElse("0"));

        derived.add(ibHca(active, settings));
        derived.add(gidIndex(active, settings, warnings));
        derived.add(socketInterface(m, settings));
        derived.add(gdrLevel(m, active, settings));

        checkPorts(m, warnings);
        checkRoceMtu(m, active, warnings);
        checkPeerMemory(m, active, warnings);
        if (ibDisabled && !active.isEmpty()) {
            warnings.add(new Warning("NCCL_IB_DISABLE=1 is set although " + active.size() + " RDMA port(s) are ACTIVE ("
                    + labels(active) + "): NCCL will use TCP sockets, typically 5 to 10 times slower between nodes.",
                    "unset NCCL_IB_DISABLE (it is only meant for machines whose adapters must not be used)."));
        }
        checkSocketInterface(m, settings, warnings);
        checkLockedMemory(m, active, warnings);
        checkRdmaLibraries(m, warnings);
        if (active.isEmpty() || ibDisabled) {
            checkSocketBuffers(m, warnings);
            checkCongestionControl(m, warnings);
        }
        m.cpus().warning(m.launcher()).ifPresent(warnings::add);
        return new NcclAdvice(derived, warnings);
    }

    private static NcclSetting setting(Settings settings, String name, String value, String reason) {
        return new NcclSetting(name, value, reason, settings.get(name).orElse(null));
    }

    private static NcclSetting ibHca(List<RdmaPort> active, Settings settings) {
        if (active.isEmpty()) {
            return setting(settings, "NCCL_IB_HCA", null, "no RDMA port is ACTIVE");
        }
        return setting(settings, "NCCL_IB_HCA", "=" + labels(active),
                "the ACTIVE RDMA ports; '=' makes NCCL match exact names (mlx5_1 alone would also match mlx5_10)");
    }

    private static NcclSetting gidIndex(List<RdmaPort> active, Settings settings, List<Warning> warnings) {
        List<RdmaPort> roce = active.stream().filter(RdmaPort::roce).toList();
        if (roce.isEmpty()) {
            return setting(settings, "NCCL_IB_GID_INDEX", null, "no active RoCE port (InfiniBand needs no GID index)");
        }
        Map<Integer, List<RdmaPort>> byIndex = roce.stream().filter(p -> p.roceV2GidIndex() >= 0)
                .collect(Collectors.groupingBy(RdmaPort::roceV2GidIndex, LinkedHashMap::new, Collectors.toList()));
        List<RdmaPort> without = roce.stream().filter(p -> p.roceV2GidIndex() < 0).toList();
        if (!without.isEmpty()) {
            warnings.add(new Warning("RoCE port(s) " + labels(without) + " have no RoCE v2 GID: NCCL cannot route RDMA "
                    + "traffic between subnets through them, and may pick a RoCE v1 GID.",
                    "give the port's network interface an IP address (the kernel then adds a RoCE v2 GID for it), "
                            + "and check with 'show_gids'."));
        }
        if (byIndex.isEmpty()) {
            return setting(settings, "NCCL_IB_GID_INDEX", null, "no RoCE v2 GID found on the active RoCE ports");
        }
        int index = byIndex.entrySet().stream().max(Map.Entry.comparingByValue(
                java.util.Comparator.comparingInt(List::size))).orElseThrow().getKey();
        if (byIndex.size() > 1) {
            warnings.add(new Warning("the active RoCE ports have their RoCE v2 IPv4 GID at different indices ("
                    + byIndex.entrySet().stream().map(e -> "index " + e.getKey() + ": " + labels(e.getValue()))
                    .collect(Collectors.joining("; ")) + "), but NCCL_IB_GID_INDEX is one number for all.",
                    "configure the interfaces alike (one IPv4 address each), or set NCCL_IB_HCA to the ports that agree."));
        }
        return setting(settings, "NCCL_IB_GID_INDEX", Integer.toString(index),
                "the RoCE v2 GID with the interface's IPv4 address" + (byIndex.size() > 1 ? " on most ports" : "")
                        + " (" + labels(byIndex.get(index)) + ")");
    }

    private static NcclSetting socketInterface(Machine m, Settings settings) {
        MasterRoute route = m.master();
        if (route == null) {
            return setting(settings, "NCCL_SOCKET_IFNAME", null, "MASTER_ADDR is not set, so the interface that reaches "
                    + "the other nodes is not known here");
        }
        if (route.iface() == null) {
            return setting(settings, "NCCL_SOCKET_IFNAME", null, route.how());
        }
        if (m.oneHost()) {
            // one host: nothing needs to reach another node, so NCCL chooses as it does under nccl-tests (it passes
            // over lo); forcing lo was reported slower, and measured no faster (benchmarks/RESULTS.md, "socket path")
            return setting(settings, "NCCL_SOCKET_IFNAME", null, "MASTER_ADDR=" + route.master() + " is a loopback "
                    + "address, so every rank runs on this host: NCCL's own choice of interface is left, as nccl-tests "
                    + "leaves it");
        }
        return setting(settings, "NCCL_SOCKET_IFNAME", "=" + route.iface(), "it reaches MASTER_ADDR=" + route.master()
                + " (" + route.how() + "), so every node can reach this one through it");
    }

    private static NcclSetting gdrLevel(Machine m, List<RdmaPort> active, Settings settings) {
        String name = "NCCL_NET_GDR_LEVEL";
        if (m.gpus().isEmpty() || active.isEmpty()) {
            return setting(settings, name, null, "GPUDirect RDMA needs both a GPU and an active RDMA port");
        }
        if (m.peerMemory() == null && !m.dmaBuf().supported()) {
            return setting(settings, name, null, "no peer-memory module is loaded and DMA-BUF is not available "
                    + "(see the warning)");
        }
        PciDistance worst = m.gpuAffinity().stream().map(Machine.GpuAffinity::distance)
                .max(PciDistance::compareTo).orElse(PciDistance.UNKNOWN);
        return switch (worst) {
            case PIX, PXB -> setting(settings, name, "PXB", "every GPU shares a PCIe switch with an active adapter "
                    + "(at worst " + worst + "): GPUDirect RDMA reads GPU memory directly");
            case PHB -> setting(settings, name, "PHB", "some GPU reaches its nearest active adapter only through the "
                    + "PCIe host bridge (PHB), beyond NCCL's default of PXB; on current CPUs GPUDirect RDMA still pays there");
            case NODE, SYS -> setting(settings, name, null, "some GPU's nearest active adapter is across the CPU "
                    + "interconnect (" + worst + "); GPUDirect RDMA would be slower than staging in host memory");
            case UNKNOWN -> setting(settings, name, null, "the PCI placement of GPUs and adapters could not be read");
        };
    }

    private static void checkPorts(Machine m, List<Warning> warnings) {
        for (RdmaAdapter a : m.rdmaAdapters()) {
            for (RdmaPort p : a.ports()) {
                if (p.active()) {
                    continue;
                }
                boolean linkUp = p.physicalState() != null && p.physicalState().contains("LinkUp");
                String why = linkUp && !p.roce()
                        ? "the link is up but no subnet manager has configured the port"
                        : "the link is not up";
                warnings.add(new Warning("RDMA port " + p.label() + " (" + p.kind() + ") is " + p.state() + " (phys_state "
                        + p.physicalState() + "): " + why + ", so NCCL cannot use it.",
                        linkUp && !p.roce() ? "start a subnet manager on the fabric (opensm), or check the switch's."
                                : "check the cable and the switch port ('ibstat " + p.adapter() + "'), and that the port "
                                + "is enabled ('ibportstate'); if the port is unused, exclude it with NCCL_IB_HCA."));
            }
        }
    }

    private static void checkRoceMtu(Machine m, List<RdmaPort> active, List<Warning> warnings) {
        for (RdmaPort p : active) {
            if (!p.roce() || p.netDevice() == null) {
                continue;
            }
            m.networkInterface(p.netDevice()).filter(i -> i.mtu() > 0 && i.mtu() < ROCE_MTU).ifPresent(i ->
                    warnings.add(new Warning("RoCE port " + p.label() + " runs over " + i.name() + " with MTU " + i.mtu()
                            + (rdmaFrame(i.mtu()) < 4096
                            ? ": RDMA frames are cut to " + rdmaFrame(i.mtu()) + " bytes instead of 4096, costing bandwidth and CPU."
                            : ", below the " + ROCE_MTU + " the RoCE guides ask for on every hop; a path MTU mismatch "
                            + "with the switches drops frames."),
                            "set MTU " + ROCE_MTU + " on " + i.name() + " ('ip link set dev " + i.name() + " mtu "
                                    + ROCE_MTU + "') and on the switch ports, on every node.")));
        }
    }

    /** The largest RDMA MTU (256 to 4096) that fits an Ethernet MTU with the RoCE v2 headers. */
    static int rdmaFrame(int ethernetMtu) {
        int frame = 4096;
        while (frame > 256 && frame + 100 > ethernetMtu) {
            frame /= 2;
        }
        return frame;
    }

    private static void checkPeerMemory(Machine m, List<RdmaPort> active, List<Warning> warnings) {
        // DMA-BUF serves GPUDirect RDMA without the module on recent kernels with the open driver: not a fault there
        if (m.peerMemory() == null && !m.dmaBuf().supported() && !active.isEmpty() && !m.gpus().isEmpty()) {
            warnings.add(new Warning("RDMA ports are ACTIVE and there are GPUs, but no peer-memory module "
                    + "(nvidia_peermem or nv_peer_mem) is loaded and DMA-BUF is not available (" + m.dmaBuf().why()
                    + "): GPUDirect RDMA is off, and NCCL copies every transfer through host memory.",
                    "'modprobe nvidia_peermem' (it ships with the NVIDIA driver since 470), and load it at boot; or "
                            + "use NVIDIA's open kernel modules on kernel 5.12+ with NCCL 2.19+, which need no module."));
        }
    }

    private static void checkLockedMemory(Machine m, List<RdmaPort> active, List<Warning> warnings) {
        Limits l = m.limits();
        if (!active.isEmpty() && l.memlockTooSmall()) {
            warnings.add(new Warning("the locked-memory limit (ulimit -l) is " + Limits.describe(l.memlockSoft())
                    + " (hard " + Limits.describe(l.memlockHard()) + ") while RDMA ports are ACTIVE: registering NCCL's "
                    + "buffers with the adapter fails ('ibv_reg_mr failed', 'Cannot allocate memory') or NCCL falls "
                    + "back to sockets.",
                    "raise it to unlimited for the job: 'ulimit -l unlimited' in the job's shell (the hard limit must "
                            + "allow it), '* - memlock unlimited' in /etc/security/limits.conf, LimitMEMLOCK=infinity "
                            + "for systemd services, '--ulimit memlock=-1' for containers, PropagateResourceLimits in Slurm."));
        }
    }

    private static void checkRdmaLibraries(Machine m, List<Warning> warnings) {
        RdmaLibraries libs = m.rdmaLibraries();
        if (libs == null || libs.missing().isEmpty()) {
            return;
        }
        warnings.add(new Warning("RDMA adapters are present (" + m.rdmaAdapters().stream().map(RdmaAdapter::name)
                .collect(Collectors.joining(", ")) + ") but " + String.join(" and ", libs.missing())
                + " cannot be found: NCCL logs 'NET/IB : No device found' once at INFO level and runs over TCP "
                + "sockets, typically several times slower between nodes.",
                "install rdma-core's user-space libraries ('apt-get install libibverbs1 ibverbs-providers', 'dnf "
                        + "install libibverbs'), or the vendor stack (DOCA-OFED); in a container, use an image that has "
                        + "them. Looked in: " + String.join("; ", libs.looked().values())));
    }

    private static void checkSocketBuffers(Machine m, List<Warning> warnings) {
        if (m.oneHost()) {
            return; // loopback: a short round trip needs no large buffers
        }
        m.limits().smallSocketBuffers().ifPresent(small -> warnings.add(new Warning("collectives between nodes go "
                + "over TCP sockets here (no ACTIVE RDMA port), and the socket buffer limits are small (" + small
                + ", under " + Limits.describe(Limits.SOCKET_BUFFER_NEEDED) + "): one stream cannot fill a fast or "
                + "distant link.",
                "raise them on every node: 'sysctl -w net.core.rmem_max=67108864 net.core.wmem_max=67108864 "
                        + "net.ipv4.tcp_rmem=\"4096 131072 67108864\" net.ipv4.tcp_wmem=\"4096 16384 67108864\"', "
                        + "and in /etc/sysctl.d to keep them.")));
    }

    private static void checkCongestionControl(Machine m, List<Warning> warnings) {
        if (m.oneHost() || !m.congestion().probesRoundTrip()) {
            return; // loopback streams see their lowest round trip all the time and never probe for it
        }
        warnings.add(new Warning("collectives between nodes go over TCP sockets here, and the kernel's congestion "
                + "control is " + m.congestion().algorithm() + ": each connection that has carried data for 10 s "
                + "without a lower round trip drops to four packets for 200 ms (PROBE_RTT), and a ring waits for it "
                + "(16 MB AllGather calls of 250-480 ms instead of 110 every 10 s, measured on 1 Gbit/s links with "
                + "2 ms of delay).",
                "'sysctl -w net.ipv4.tcp_congestion_control=cubic' on every node (and in /etc/sysctl.d to keep it), "
                        + "unless BBR was chosen for lossy paths that cubic handles worse."));
    }

    private static void checkSocketInterface(Machine m, Settings settings, List<Warning> warnings) {
        String value = settings.get("NCCL_SOCKET_IFNAME").orElse(null);
        if (value == null) {
            return;
        }
        NcclNameList list = NcclNameList.parse(value);
        if (list.exclude()) {
            if (m.interfaces().stream().noneMatch(i -> i.up() && list.admits(i.name()))) {
                warnings.add(new Warning("NCCL_SOCKET_IFNAME=" + value + " excludes every interface that is up.",
                        "name the interface that reaches the other nodes"
                                + (m.master() != null && m.master().iface() != null ? " (" + m.master().iface() + ")" : "")
                                + ", or unset the variable."));
            }
            return;
        }
        List<String> bad = new ArrayList<>();
        for (String entry : list.entries()) {
            List<NetInterface> named = m.interfaces().stream().filter(i -> list.entryMatches(entry, i.name())).toList();
            if (named.isEmpty()) {
                bad.add(entry + " matches no interface");
            } else if (named.stream().noneMatch(NetInterface::up)) {
                bad.add(entry + " matches only interfaces that are down ("
                        + named.stream().map(NetInterface::name).collect(Collectors.joining(", ")) + ")");
            }
        }
        if (!bad.isEmpty()) {
            String up = m.interfaces().stream().filter(NetInterface::up).map(NetInterface::name).collect(Collectors.joining(", "));
            warnings.add(new Warning("NCCL_SOCKET_IFNAME=" + value + ": " + String.join("; ", bad)
                    + (bad.size() == list.entries().size() ? ", so NCCL will fail to find an interface." : "."),
                    "use one of the interfaces that are up (" + up + ")"
                            + (m.master() != null && m.master().iface() != null ? "; " + m.master().iface() + " reaches the master" : "")
                            + "."));
        }
    }

    private static String labels(List<RdmaPort> ports) {
        return ports.stream().map(RdmaPort::label).collect(Collectors.joining(","));
    }
}
