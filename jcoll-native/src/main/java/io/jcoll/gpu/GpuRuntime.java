package io.jcoll.gpu;

import io.jcoll.probe.LibraryFinder;
import org.bytedeco.cuda.cudart.cudaDeviceProp;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nccl;
import org.bytedeco.javacpp.Loader;

import java.util.List;

/**
 * Loads the host's CUDA runtime and NCCL, once, and says what it found: where
 * each library came from and which versions are in use. Nothing native is
 * touched unless both files were found first, so a machine without a GPU
 * stack gets a clear reason instead of a linkage error.
 */
public final class GpuRuntime {

    /** The minimum NCCL this transport is written for (2.19: ncclCommInitRankConfig, non-blocking init). */
    public static final int MIN_NCCL_VERSION = 21900;

    /**
     * What loading found.
     *
     * @param available    whether CUDA and NCCL are loaded and at least one GPU is visible
     * @param reason       one sentence: what is there, or what is missing and what to install
     * @param cudart       where libcudart came from
     * @param nccl         where libnccl came from
     * @param ncclVersion  {@code ncclGetVersion}, such as 22803
     * @param runtimeVersion {@code cudaRuntimeGetVersion}
     * @param driverVersion  {@code cudaDriverGetVersion}
     * @param devices      visible GPUs
     * @param gpus         what CUDA says of each visible GPU
     * @param searched     where a library that was not found was looked for (for {@code jcoll doctor}); null
     */
    public record Status(boolean available, String reason, LibraryFinder.Found cudart, LibraryFinder.Found nccl,
                         int ncclVersion, int runtimeVersion, int driverVersion, int devices, List<Gpu> gpus,
                         String searched) {
        public Status {
            gpus = List.copyOf(gpus);
        }
    }

    /**
     * One visible GPU as CUDA numbers it.
     *
     * @param ordinal  CUDA's device number (after {@code CUDA_VISIBLE_DEVICES})
     * @param name     such as {@code NVIDIA H200}
     * @param busId    PCI address, such as {@code 0000:18:00.0}
     * @param peers    the ordinals this GPU can read and write directly (NVLink or PCIe peer-to-peer)
     */
    public record Gpu(int ordinal, String name, String busId, List<Integer> peers) {
    }

    private static Status status;

    private GpuRuntime() {
    }

    public static synchronized Status status() {
        if (status == null) {
            status = load(LibraryFinder.system());
        }
        return status;
    }

    /** Throws {@link NativeCallException} with the reason unless the runtime is available. */
    public static Status require(String operation, int rank) {
        Status s = status();
        if (!s.available()) {
            throw new NativeCallException(operation, rank, s.reason(), -1);
        }
        return s;
    }

    /**
     * The GPU a rank uses: {@code JCOLL_DEVICE} if set, otherwise its local rank, which must be a
     * visible GPU (one rank per GPU). Throws {@link IllegalArgumentException} saying why not.
     */
    public static int deviceFor(io.jcoll.spi.Settings settings, int localRank, int devices) {
        int chosen = settings.getInt("JCOLL_DEVICE", -1);
        if (chosen >= 0) {
            if (chosen >= devices) {
                throw new IllegalArgumentException("JCOLL_DEVICE=" + chosen + " but only " + devices + " GPU(s) are visible");
            }
            return chosen;
        }
        if (localRank >= devices) {
            throw new IllegalArgumentException("LOCAL_RANK " + localRank + " has no GPU of its own: only " + devices
                    + " are visible (one rank per GPU)");
        }
        return localRank;
    }

    private static Status load(LibraryFinder finder) {
        LibraryFinder.Search cudartSearch = finder.find("libcudart.so.13", "JCOLL_CUDART_LIBRARY",
                List.of("cu13/lib", "cuda_runtime/lib"));
        LibraryFinder.Search ncclSearch = finder.find("libnccl.so.2", "JCOLL_NCCL_LIBRARY", List.of("nccl/lib", "cu13/lib"));
        // the reason is repeated wherever the transport is passed over (every run's header): one line; the places
        // searched go to the doctor as a fact
        if (cudartSearch.found() == null) {
            return missing(cudartSearch.summarizeMiss() + ". Install the CUDA 13 runtime (or set JCOLL_CUDART_LIBRARY)",
                    null, ncclSearch.found(), cudartSearch.describeMiss());
        }
        if (ncclSearch.found() == null) {
            return missing(ncclSearch.summarizeMiss() + ". Install NCCL 2 (libnccl2, or pip install nvidia-nccl-cu13), "
                    + "or set JCOLL_NCCL_LIBRARY", cudartSearch.found(), null, ncclSearch.describeMiss());
        }
        try {
            // the JNI glue needs these sonames; loading the files found first makes the dynamic linker use them
            System.load(cudartSearch.found().path().toAbsolutePath().toString());
            System.load(ncclSearch.found().path().toAbsolutePath().toString());
            Loader.load(cudart.class);
            Loader.load(nccl.class);
            int[] v = new int[1];
            int nv = nccl.ncclGetVersion(v) == 0 ? v[0] : -1;
            int rt = cudart.cudaRuntimeGetVersion(v) == 0 ? v[0] : -1;
            int drv = cudart.cudaDriverGetVersion(v) == 0 ? v[0] : -1;
            int devices = cudart.cudaGetDeviceCount(v) == 0 ? v[0] : 0;
            String where = "libnccl " + version(nv) + " from " + ncclSearch.found().path() + " (" + ncclSearch.found().source()
                    + "), libcudart " + rt + " from " + cudartSearch.found().path() + " (" + cudartSearch.found().source()
                    + "), driver " + drv + ", " + devices + " GPU(s)";
            if (devices < 1) {
                return new Status(false, "no GPU is visible (" + where + "); check nvidia-smi and CUDA_VISIBLE_DEVICES",
                        cudartSearch.found(), ncclSearch.found(), nv, rt, drv, 0, List.of(), null);
            }
            List<Gpu> gpus = describe(devices);
            if (nv < MIN_NCCL_VERSION) {
                return new Status(false, "NCCL " + version(nv) + " is older than " + version(MIN_NCCL_VERSION)
                        + " (" + where + "); install a newer NCCL", cudartSearch.found(), ncclSearch.found(), nv, rt, drv,
                        devices, gpus, null);
            }
            return new Status(true, where, cudartSearch.found(), ncclSearch.found(), nv, rt, drv, devices, gpus, null);
        } catch (Throwable e) { // UnsatisfiedLinkError, or anything the JNI glue throws while loading
            return missing("loading CUDA and NCCL failed: " + e, cudartSearch.found(), ncclSearch.found(), null);
        }
    }

    private static Status missing(String reason, LibraryFinder.Found cudart, LibraryFinder.Found nccl,
                                  String searched) {
        return new Status(false, reason, cudart, nccl, -1, -1, -1, 0, List.of(), searched);
    }

    /** Name, PCI address and peer access of each visible GPU; queries that create no CUDA context. */
    private static List<Gpu> describe(int devices) {
        List<Gpu> gpus = new java.util.ArrayList<>();
        for (int d = 0; d < devices; d++) {
            String name = "unknown";
            try (cudaDeviceProp prop = new cudaDeviceProp()) {
                if (cudart.cudaGetDeviceProperties(prop, d) == 0) {
                    name = prop.name().getString();
                }
            }
            byte[] bus = new byte[32];
            String busId = cudart.cudaDeviceGetPCIBusId(bus, bus.length, d) == 0
                    ? new String(bus, 0, indexOfNul(bus), java.nio.charset.StandardCharsets.US_ASCII).toLowerCase(java.util.Locale.ROOT)
                    : "unknown";
            List<Integer> peers = new java.util.ArrayList<>();
            int[] can = new int[1];
            for (int p = 0; p < devices; p++) {
                if (p != d && cudart.cudaDeviceCanAccessPeer(can, d, p) == 0 && can[0] == 1) {
                    peers.add(p);
                }
            }
            gpus.add(new Gpu(d, name, busId, peers));
        }
        return gpus;
    }

    private static int indexOfNul(byte[] b) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == 0) {
                return i;
            }
        }
        return b.length;
    }

    /** 22803 as 2.28.3. */
    public static String version(int code) {
        if (code < 0) {
            return "unknown";
        }
        return code / 10000 + "." + (code / 100) % 100 + "." + code % 100;
    }
}
