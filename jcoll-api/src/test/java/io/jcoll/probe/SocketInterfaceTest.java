package io.jcoll.probe;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** JCOLL_SOCKET_IFNAME in NCCL's and Gloo's syntax picks the interface whose address a rank advertises. */
class SocketInterfaceTest {

    private static SocketInterface.Candidate nic(String name, String address, boolean up) throws Exception {
        return new SocketInterface.Candidate(name, InetAddress.getByName(address), up, name.equals("lo"));
    }

    @Test
    void prefixesExactNamesAndExclusionsChooseAsNcclDoes() throws Exception {
        List<SocketInterface.Candidate> here = List.of(nic("docker0", "172.17.0.1", true), nic("eth0", "10.0.0.5", true),
                nic("eth10", "10.1.0.5", true), nic("ib0", "192.168.7.5", false), nic("lo", "127.0.0.1", true));
        assertEquals("eth0", SocketInterface.choose("eth", here).orElseThrow().name());
        assertEquals("eth10", SocketInterface.choose("=eth10", here).orElseThrow().name());
        assertEquals("eth0", SocketInterface.choose("^docker,lo", here).orElseThrow().name());
        assertEquals("10.0.0.5", SocketInterface.choose("eth0", here).orElseThrow().address().getHostAddress());
        assertTrue(SocketInterface.choose("ib", here).isEmpty(), "an interface that is down is never chosen");
        String why = SocketInterface.noneMatched("ib", here);
        assertTrue(why.contains("JCOLL_SOCKET_IFNAME=ib admits no interface that is up") && why.contains("ib0 (down) "
                + "192.168.7.5") && why.contains("eth0 10.0.0.5"), why);
    }

    @Test
    void thisMachinesInterfacesAreRead() {
        List<SocketInterface.Candidate> here = SocketInterface.live();
        assertTrue(here.stream().anyMatch(SocketInterface.Candidate::loopback), here.toString());
        assertEquals("lo", SocketInterface.choose("lo", here).orElseThrow().name());
    }
}
