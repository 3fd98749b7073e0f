package io.jcoll.probe;

import io.jcoll.spi.Settings;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Which network interface reaches the job's master ({@code MASTER_ADDR}): the
 * interface NCCL's bootstrap and socket transport should use, because the
 * master is reachable through it from every node.
 *
 * @param master    {@code MASTER_ADDR} as given
 * @param iface     the interface, or null when it cannot be told
 * @param how       how it was found, or why not
 */
public record MasterRoute(String master, String iface, String how) {

    /** Null when {@code MASTER_ADDR} is not set (not inside a job). */
    public static MasterRoute find(SystemFiles files, Settings settings, List<NetInterface> interfaces) {
        String master = settings.get("MASTER_ADDR").orElse(null);
        if (master == null) {
            return null;
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(master);
        } catch (UnknownHostException e) {
            return new MasterRoute(master, null, "MASTER_ADDR=" + master + " does not resolve");
        }
        if (address.isLoopbackAddress()) {
            String lo = interfaces.stream().filter(NetInterface::loopback).map(NetInterface::name).findFirst().orElse("lo");
            return new MasterRoute(master, lo, address.getHostAddress() + " is a loopback address: a single-node job");
        }
        if (files.isLive()) {
            // let the kernel route it: connecting a UDP socket sends nothing but picks the source address
            try (DatagramSocket probe = new DatagramSocket()) {
                probe.connect(new InetSocketAddress(address, 9));
                NetworkInterface nif = NetworkInterface.getByInetAddress(probe.getLocalAddress());
                if (nif != null) {
                    return new MasterRoute(master, nif.getName(), "the kernel routes " + address.getHostAddress()
                            + " from " + probe.getLocalAddress().getHostAddress() + " on " + nif.getName());
                }
            } catch (IOException | RuntimeException e) {
                // fall through to the routing table
            }
        }
        return RouteTable.read(files).interfaceFor(address)
                .map(i -> new MasterRoute(master, i, "/proc/net/route sends " + address.getHostAddress() + " through " + i))
                .orElseGet(() -> new MasterRoute(master, null, "no route to " + address.getHostAddress() + " found"));
    }
}
