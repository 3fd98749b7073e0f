package io.jcoll.nccl;

import io.jcoll.gpu.GpuRuntime;
import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.spi.TransportProvider;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Finds the NCCL transport for {@link java.util.ServiceLoader}. It can run
 * where the host's CUDA runtime and NCCL load and this rank has a GPU of its own.
 */
public final class NcclTransportProvider implements TransportProvider {

    /** Before TCP: when every rank has a GPU and NCCL, NCCL is the way. */
    public static final int PREFERENCE = 10;

    @Override
    public String name() {
        return "nccl";
    }

    @Override
    public int preference() {
        return PREFERENCE;
    }

    @Override
    public Availability probe(Settings settings) {
        GpuRuntime.Status s = GpuRuntime.status();
        Map<String, String> facts = facts(s);
        if (!s.available()) {
            return Availability.unusable(s.reason()).withFacts(facts);
        }
        int device;
        try {
            device = GpuRuntime.deviceFor(settings, settings.getInt("LOCAL_RANK", settings.getInt("RANK", 0)), s.devices());
        } catch (IllegalArgumentException e) {
            return Availability.unusable(e.getMessage()).withFacts(facts);
        }
        facts.put("device", Integer.toString(device));
        return Availability.usable("GPU " + device + " of " + s.devices() + "; " + s.reason()).withFacts(facts);
    }

    /** What loading found, for {@code jcoll doctor}: libraries, versions, and each GPU with its peers. */
    private static Map<String, String> facts(GpuRuntime.Status s) {
        Map<String, String> facts = new LinkedHashMap<>();
        if (s.searched() != null) {
            facts.put("searched", s.searched());
        }
        if (s.nccl() != null) {
            facts.put("nccl_library", s.nccl().path().toString());
            facts.put("nccl_found_by", s.nccl().source());
        }
        if (s.ncclVersion() > 0) {
            facts.put("nccl_version", GpuRuntime.version(s.ncclVersion()));
        }
        if (s.cudart() != null) {
            facts.put("cudart_library", s.cudart().path().toString());
            facts.put("cudart_found_by", s.cudart().source());
        }
        if (s.runtimeVersion() > 0) {
            facts.put("cuda_runtime_version", cudaVersion(s.runtimeVersion()));
        }
        if (s.driverVersion() > 0) {
            facts.put("cuda_driver_version", cudaVersion(s.driverVersion()));
        }
        facts.put("visible_gpus", Integer.toString(s.devices()));
        for (GpuRuntime.Gpu g : s.gpus()) {
            facts.put("gpu" + g.ordinal(), g.name() + " at " + g.busId() + ", peer access to "
                    + (g.peers().isEmpty() ? "none" : g.peers().toString()));
        }
        return facts;
    }

    /** 13010 as 13.1. */
    private static String cudaVersion(int code) {
        return code / 1000 + "." + (code % 1000) / 10;
    }

    @Override
    public Transport open(TransportContext context) {
        return NcclTransport.open(context);
    }
}
