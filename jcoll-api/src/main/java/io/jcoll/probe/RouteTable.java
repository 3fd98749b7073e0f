package io.jcoll.probe;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The kernel's IPv4 main routing table from {@code /proc/net/route}: which
 * interface a packet to an address leaves through (longest matching prefix,
 * then lowest metric). Addresses and masks there are hexadecimal in the
 * machine's byte order (little-endian on x86-64 and arm64).
 */
public final class RouteTable {

    private static final int RTF_UP = 0x1;

    record Route(String iface, int destination, int mask, int metric) {
        boolean matches(int address) {
            return (address & mask) == (destination & mask);
        }
    }

    private final List<Route> routes;

    private RouteTable(List<Route> routes) {
        this.routes = routes;
    }

    public static RouteTable read(SystemFiles files) {
        List<Route> routes = new ArrayList<>();
        List<String> lines = files.lines("/proc/net/route");
        for (int i = 1; i < lines.size(); i++) { // the first line names the columns
            String[] f = lines.get(i).trim().split("\\s+");
            if (f.length < 8) {
                continue;
            }
            try {
                int flags = Integer.parseInt(f[3], 16);
                if ((flags & RTF_UP) == 0) {
                    continue;
                }
                routes.add(new Route(f[0], Integer.reverseBytes((int) Long.parseLong(f[1], 16)),
                        Integer.reverseBytes((int) Long.parseLong(f[7], 16)), Integer.parseInt(f[6])));
            } catch (NumberFormatException e) {
                // a line we do not understand says nothing about the others
            }
        }
        return new RouteTable(routes);
    }

    /** The interface the table sends {@code address} through; empty if no route matches or it is not IPv4. */
    public Optional<String> interfaceFor(InetAddress address) {
        if (!(address instanceof Inet4Address)) {
            return Optional.empty();
        }
        byte[] b = address.getAddress();
        int a = ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
        Route best = null;
        for (Route r : routes) {
            if (r.matches(a) && (best == null || Integer.bitCount(r.mask) > Integer.bitCount(best.mask)
                    || (Integer.bitCount(r.mask) == Integer.bitCount(best.mask) && r.metric < best.metric))) {
                best = r;
            }
        }
        return Optional.ofNullable(best).map(Route::iface);
    }

    public boolean isEmpty() {
        return routes.isEmpty();
    }
}
