package io.jcoll.probe;

import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probe on the machine running the tests: it must work on whatever is there. */
class LiveMachineTest {

    @Test
    void probesThisMachine() {
        Machine m = Machine.probe(SystemFiles.live(), Settings.of(Map.of("MASTER_ADDR", "127.0.0.1")));
        assertTrue(m.interfaces().stream().anyMatch(NetInterface::loopback), "every Linux machine has a loopback device");
        assertEquals("lo", m.master().iface());
        // the master is on loopback: a single-host job, where NCCL's own choice of interface is left to it
        NcclSetting ifname = NcclAdvisor.advise(m, Settings.of(Map.of("MASTER_ADDR", "127.0.0.1"))).settings()
                .stream().filter(s -> s.name().equals("NCCL_SOCKET_IFNAME")).findFirst().orElseThrow();
        assertNull(ifname.value(), ifname.reason());
        assertTrue(ifname.reason().contains("every rank runs on this host"), ifname.reason());
    }

    /**
     * procfs reports a size of 0, and the kernel's sysctl handlers answer a read past offset 0 with end of file: a
     * reader that starts with one byte would take rmem_max for "4". Compared with what cat prints.
     */
    @Test
    void sysctlFilesReadWhole() throws Exception {
        String path = "/proc/sys/net/core/rmem_max";
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(java.nio.file.Path.of(path)));
        Process cat = new ProcessBuilder("cat", path).start();
        String expected = new String(cat.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
        cat.waitFor();
        assertEquals(expected, SystemFiles.live().read(path).orElseThrow());
        assertEquals(Long.parseLong(expected), Limits.read(SystemFiles.live()).rmemMax());
    }

    @Test
    void theKernelRoutesThisHostsOwnAddress() throws Exception {
        java.net.InetAddress self = null;
        for (var nif : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
            if (nif.isUp() && !nif.isLoopback()) {
                for (var a : java.util.Collections.list(nif.getInetAddresses())) {
                    if (a instanceof java.net.Inet4Address) {
                        self = a;
                    }
                }
            }
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(self != null, "SKIPPED: no non-loopback IPv4 address here");
        Machine m = Machine.probe(SystemFiles.live(), Settings.of(Map.of("MASTER_ADDR", self.getHostAddress())));
        assertEquals(java.net.NetworkInterface.getByInetAddress(self).getName(), m.master().iface());
    }
}
