package io.jcoll.probe;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether GPUDirect RDMA can go through DMA-BUF, the alternative to the
 * {@code nvidia_peermem} module: NCCL 2.19 and later export GPU memory as a
 * DMA-BUF and register that with the adapter when the kernel (5.12 and later)
 * and NVIDIA's open kernel modules support it. The kernel and the driver
 * flavour are read here; NCCL's version is known only where NCCL was loaded,
 * and {@link #withNccl} adds it.
 *
 * @param supported whether kernel and driver allow it (and NCCL, where its version is known)
 * @param why       the evidence, in words
 */
public record DmaBuf(boolean supported, String why) {

    private static final Pattern RELEASE = Pattern.compile("^(\\d+)\\.(\\d+)");

    public static DmaBuf read(SystemFiles files) {
        Optional<String> release = files.read("/proc/sys/kernel/osrelease")
                .or(() -> files.read("/proc/version").map(v -> v.replaceFirst("^Linux version ", "")));
        Optional<String> driver = files.read("/proc/driver/nvidia/version");
        if (driver.isEmpty()) {
            return new DmaBuf(false, "no NVIDIA kernel driver is loaded");
        }
        boolean open = driver.get().contains("Open Kernel Module");
        if (release.isEmpty()) {
            return new DmaBuf(false, "the kernel's version could not be read");
        }
        Matcher m = RELEASE.matcher(release.get());
        if (!m.find()) {
            return new DmaBuf(false, "the kernel's version '" + release.get() + "' could not be read");
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        boolean kernel = major > 5 || major == 5 && minor >= 12;
        String kernelWords = "kernel " + m.group() + (kernel ? " (5.12 or later)" : " (older than 5.12)");
        String driverWords = open ? "NVIDIA's open kernel modules" : "NVIDIA's proprietary kernel modules";
        return new DmaBuf(kernel && open, kernelWords + ", " + driverWords
                + (kernel && open ? "" : ": DMA-BUF needs kernel 5.12+ and the open modules"));
    }

    /** The same verdict with NCCL's version ({@code 2.28.3}) taken into account. */
    public DmaBuf withNccl(String ncclVersion) {
        if (ncclVersion == null || !supported) {
            return this;
        }
        String[] v = ncclVersion.split("\\.");
        try {
            boolean recent = Integer.parseInt(v[0]) > 2 || Integer.parseInt(v[0]) == 2 && Integer.parseInt(v[1]) >= 19;
            return recent ? new DmaBuf(true, why + ", NCCL " + ncclVersion)
                    : new DmaBuf(false, why + ", but NCCL " + ncclVersion + " is older than 2.19");
        } catch (RuntimeException e) {
            return this;
        }
    }
}
