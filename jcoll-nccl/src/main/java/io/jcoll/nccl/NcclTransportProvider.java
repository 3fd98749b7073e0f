package io.jcoll.nccl;

import io.jcoll.gpu.GpuRuntime;
import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.spi.TransportProvider;

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
        if (!s.available()) {
            return Availability.unusable(s.reason());
        }
        int device;
        try {
            device = GpuRuntime.deviceFor(settings, settings.getInt("LOCAL_RANK", settings.getInt("RANK", 0)), s.devices());
        } catch (IllegalArgumentException e) {
            return Availability.unusable(e.getMessage());
        }
        return Availability.usable("GPU " + device + " of " + s.devices() + "; " + s.reason());
    }

    @Override
    public Transport open(TransportContext context) {
        return NcclTransport.open(context);
    }
}
