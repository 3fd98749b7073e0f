package io.jcoll.tcp;

import io.jcoll.spi.Availability;
import io.jcoll.spi.Settings;
import io.jcoll.spi.Transport;
import io.jcoll.spi.TransportContext;
import io.jcoll.spi.TransportProvider;

/** Finds the TCP transport for {@link java.util.ServiceLoader}. It runs anywhere a JVM does. */
public final class TcpTransportProvider implements TransportProvider {

    /** After every accelerated transport: TCP is the fallback that always works. */
    public static final int PREFERENCE = 100;

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public int preference() {
        return PREFERENCE;
    }

    @Override
    public Availability probe(Settings settings) {
        return Availability.usable("pure Java over TCP sockets, runs anywhere (host memory)");
    }

    @Override
    public Transport open(TransportContext context) {
        return TcpTransport.open(context);
    }
}
