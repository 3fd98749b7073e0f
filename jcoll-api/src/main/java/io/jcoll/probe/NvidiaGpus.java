package io.jcoll.probe;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the GPUs and the kernel driver's version from the files the NVIDIA
 * driver publishes: {@code /proc/driver/nvidia/version} and one
 * {@code /proc/driver/nvidia/gpus/BUS/information} per GPU ("Model:",
 * "Bus Location:", "Device Minor:" lines). Their PCI place comes from
 * {@code /sys/bus/pci/devices/BUS}. No GPU library is loaded, so this works
 * where CUDA is missing or broken, which is when it is most needed.
 */
public final class NvidiaGpus {

    private static final String DRIVER_DIR = "/proc/driver/nvidia";
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build ..."
    private static final Pattern DRIVER_VERSION = Pattern.compile("\\s(\\d+\\.\\d+(?:\\.\\d+)?)\\s");

    private NvidiaGpus() {
    }

    /** The kernel driver's version, such as {@code 570.86.15}, if the driver is loaded. */
    public static Optional<String> driverVersion(SystemFiles files) {
        return files.lines(DRIVER_DIR + "/version").stream().filter(l -> l.startsWith("NVRM version"))
                .map(DRIVER_VERSION::matcher).filter(Matcher::find).map(m -> m.group(1)).findFirst();
    }

    public static List<GpuDevice> read(SystemFiles files) {
        List<GpuDevice> gpus = new ArrayList<>();
        for (String bus : files.list(DRIVER_DIR + "/gpus")) {
            String model = null;
            String busId = bus;
            int minor = -1;
            for (String line : files.lines(DRIVER_DIR + "/gpus/" + bus + "/information")) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String key = line.substring(0, colon).trim();
                String value = line.substring(colon + 1).trim();
                switch (key) {
                    case "Model" -> model = value;
                    case "Bus Location" -> busId = value;
                    case "Device Minor" -> minor = parse(value);
                    default -> { }
                }
            }
            busId = busId.toLowerCase(Locale.ROOT);
            String device = "/sys/bus/pci/devices/" + busId;
            gpus.add(new GpuDevice(minor, model == null ? "unknown NVIDIA GPU" : model, busId,
                    files.realPath(device).orElse(null), (int) files.readLong(device + "/numa_node", -1)));
        }
        gpus.sort(Comparator.comparing(GpuDevice::busId)); // CUDA's default order (CUDA_DEVICE_ORDER=PCI_BUS_ID) is by bus
        return gpus;
    }

    private static int parse(String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
