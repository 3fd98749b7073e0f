package io.jcoll.probe;

import io.jcoll.spi.Settings;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What one machine offers a collective job, probed from its files.
 *
 * @param root          the directory read as {@code /}
 * @param driverVersion the NVIDIA kernel driver's version, or null when it is not loaded
 * @param gpus          GPUs the driver knows, in PCI bus order
 * @param rdmaAdapters  adapters under {@code /sys/class/infiniband}
 * @param peerMemory    the GPUDirect RDMA peer-memory module that is loaded, or null
 * @param interfaces    network interfaces
 * @param master        the interface that reaches {@code MASTER_ADDR}, or null outside a job
 * @param launcher      who started this process
 * @param cpus          the CPUs this process may run on
 * @param limits        locked-memory and socket-buffer limits
 * @param rdmaLibraries the user-space RDMA libraries the adapters need, or null without adapters
 * @param dmaBuf        whether GPUDirect RDMA can go through DMA-BUF instead of a peer-memory module
 * @param congestion    the kernel's TCP congestion control for new connections
 */
public record Machine(String root, String driverVersion, List<GpuDevice> gpus, List<RdmaAdapter> rdmaAdapters,
                      String peerMemory, List<NetInterface> interfaces, MasterRoute master,
                      LaunchEnvironment launcher, CpuAffinity cpus, Limits limits, RdmaLibraries rdmaLibraries,
                      DmaBuf dmaBuf, CongestionControl congestion) {

    /** A GPU with the active RDMA adapter nearest to it in the PCI tree. */
    public record GpuAffinity(GpuDevice gpu, RdmaAdapter adapter, PciDistance distance) {
    }

    public Machine {
        gpus = List.copyOf(gpus);
        rdmaAdapters = List.copyOf(rdmaAdapters);
        interfaces = List.copyOf(interfaces);
    }

    /** Probes the machine that {@code JCOLL_SYSFS_ROOT} names, or this one. */
    public static Machine probe(Settings settings) {
        return probe(SystemFiles.from(settings), settings);
    }

    public static Machine probe(SystemFiles files, Settings settings) {
        List<NetInterface> interfaces = NetInterfaces.read(files);
        List<RdmaAdapter> adapters = RdmaAdapters.read(files);
        return new Machine(files.root().toString(), NvidiaGpus.driverVersion(files).orElse(null),
                NvidiaGpus.read(files), adapters, PeerMemory.loadedModule(files).orElse(null),
                interfaces, MasterRoute.find(files, settings, interfaces), LaunchEnvironment.detect(settings),
                CpuAffinity.read(files), Limits.read(files), RdmaLibraries.find(files, adapters, libraryEnv(settings)),
                DmaBuf.read(files), CongestionControl.read(files));
    }

    /** The variables that steer where libraries are looked for. */
    private static java.util.Map<String, String> libraryEnv(Settings settings) {
        java.util.Map<String, String> env = new java.util.HashMap<>();
        for (String name : List.of("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX", "VIRTUAL_ENV",
                "JCOLL_IBVERBS_LIBRARY")) {
            settings.get(name).ifPresent(v -> env.put(name, v));
        }
        return env;
    }

    /** Every RDMA port whose state is ACTIVE. */
    public List<RdmaPort> activePorts() {
        List<RdmaPort> ports = new ArrayList<>();
        rdmaAdapters.forEach(a -> a.ports().stream().filter(RdmaPort::active).forEach(ports::add));
        return ports;
    }

    /** Whether {@code MASTER_ADDR} is reached over loopback: every rank of the job runs on this host. */
    public boolean oneHost() {
        return master != null && master.iface() != null
                && networkInterface(master.iface()).map(NetInterface::loopback).orElse(false);
    }

    public Optional<NetInterface> networkInterface(String name) {
        return interfaces.stream().filter(i -> i.name().equals(name)).findFirst();
    }

    /** For each GPU, the nearest adapter with an active port; empty without both. */
    public List<GpuAffinity> gpuAffinity() {
        List<GpuAffinity> list = new ArrayList<>();
        List<RdmaAdapter> active = rdmaAdapters.stream().filter(RdmaAdapter::active).toList();
        if (active.isEmpty()) {
            return list;
        }
        for (GpuDevice g : gpus) {
            active.stream()
                    .map(a -> new GpuAffinity(g, a, PciDistance.between(g.pciPath(), g.numaNode(), a.pciPath(), a.numaNode())))
                    .min(Comparator.comparing(GpuAffinity::distance))
                    .ifPresent(list::add);
        }
        return list;
    }
}
