package io.jcoll.probe;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The interface the TCP transport's data connections use: {@code JCOLL_SOCKET_IFNAME} in NCCL's and Gloo's
 * syntax (prefixes, {@code =exact}, {@code ^exclusions}), else the interface that reaches the master, as the
 * address this rank reached the store from. A rank advertises that interface's address to its peers, which
 * connect to it; its listener accepts on every address.
 */
public final class SocketInterface {

    public static final String VARIABLE = "JCOLL_SOCKET_IFNAME";

    private SocketInterface() {
    }

    /** An interface and its address, as this process sees it. */
    public record Candidate(String name, InetAddress address, boolean up, boolean loopback) {
    }

    /** The interfaces of this process's network namespace with their first address (IPv4 first). */
    public static List<Candidate> live() {
        List<Candidate> found = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                List<InetAddress> addresses = Collections.list(nif.getInetAddresses());
                addresses.sort((a, b) -> Boolean.compare(!(a instanceof Inet4Address), !(b instanceof Inet4Address)));
                if (!addresses.isEmpty()) {
                    found.add(new Candidate(nif.getName(), addresses.get(0), nif.isUp(), nif.isLoopback()));
                }
            }
        } catch (SocketException e) {
            // none readable: the caller reports that nothing matched
        }
        found.sort((a, b) -> a.name().compareTo(b.name()));
        return found;
    }

    /**
     * The first up interface that {@code list} admits, in name order.
     *
     * @return its address, or empty with nothing admitted
     */
    public static Optional<Candidate> choose(String list, List<Candidate> candidates) {
        NcclNameList names = NcclNameList.parse(list);
        return candidates.stream().filter(Candidate::up).filter(c -> names.admits(c.name())).findFirst();
    }

    /** Why nothing was chosen, naming what there was. */
    public static String noneMatched(String list, List<Candidate> candidates) {
        return VARIABLE + "=" + list + " admits no interface that is up with an address here; this host has "
                + candidates.stream().map(c -> c.name() + (c.up() ? "" : " (down)") + " " + c.address().getHostAddress())
                .toList();
    }
}
