package io.jcoll.nccl;

import io.jcoll.NetworkReport;
import io.jcoll.probe.RdmaPort;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading NCCL's INFO log, in the line formats NCCL 2.2x writes. */
class NcclLogParserTest {

    private static final List<RdmaPort> NO_PORTS = List.of();
    private static final List<RdmaPort> ACTIVE_ROCE = List.of(
            new RdmaPort("mlx5_0", 1, "4: ACTIVE", "5: LinkUp", "Ethernet", "100 Gb/sec (4X EDR)", 3, "ens1f0np0"));

    @Test
    void multiNodeRoceWithGpuDirect() {
        List<String> log = List.of(
                "node1:4242:4242 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.",
                "node1:4242:4242 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB ens1f0np0:10.20.0.11<0>",
                "node1:4242:4242 [0] NCCL INFO Using network IB",
                "node1:4242:4300 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 12.000000/12.000000, type NVL/PIX, sameChannels 1",
                "node1:4242:4300 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 0 / HCA 0 (distance 4 <= 5), read 1 mode Default",
                "node1:4242:4300 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read",
                "node1:4242:4300 [0] NCCL INFO Channel 00/0 : 3[0] -> 0[0] [receive] via NET/IB/0/GDRDMA",
                "node1:4242:4300 [0] NCCL INFO Channel 01/0 : 0[0] -> 3[0] [send] via NET/IB/0/GDRDMA");
        NcclLogParser.Findings f = NcclLogParser.parse(log);
        assertEquals("IB", f.network());
        assertEquals(List.of("mlx5_0:1/RoCE"), f.devices());
        assertEquals(Set.of("P2P/CUMEM/read", "NET/IB/GDRDMA"), f.paths());
        assertEquals(Boolean.TRUE, f.gpuDirectRdma());
        assertEquals("NVL", f.intraNodeLink());
        NetworkReport r = NcclNetwork.report(f, ACTIVE_ROCE, "test");
        assertTrue(r.summary().contains("NVLink peer-to-peer (P2P/CUMEM/read)"), r.summary());
        assertTrue(r.summary().contains("the IB network with GPUDirect RDMA"), r.summary());
        assertEquals(List.of(), r.warnings());
    }

    @Test
    void socketsWhileAnRdmaPortIsActiveIsWarnedAbout() {
        List<String> log = List.of(
                "n:1:1 [0] NCCL INFO NET/IB : No device found.",
                "n:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.2.3<0> [1]eth1:10.9.9.9<0>",
                "n:1:1 [0] NCCL INFO Using network Socket",
                "n:1:9 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/1",
                "n:1:9 [0] NCCL WARN NET/Socket : peer 10.1.2.4 closed the connection");
        NcclLogParser.Findings f = NcclLogParser.parse(log);
        assertEquals("Socket", f.network());
        assertEquals(List.of("eth0:10.1.2.3", "eth1:10.9.9.9"), f.devices());
        assertEquals(Set.of("NET/Socket"), f.paths());
        assertNull(f.gpuDirectRdma());
        NetworkReport r = NcclNetwork.report(f, ACTIVE_ROCE, "test");
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("chose TCP sockets although RDMA port(s) mlx5_0:1")),
                r.warnings().toString());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("peer 10.1.2.4 closed")));
        assertFalse(NcclNetwork.report(f, NO_PORTS, "test").warnings().stream().anyMatch(w -> w.contains("sockets")));
    }

    @Test
    void beforeTheFirstCollectiveNothingIsConnected() {
        NcclLogParser.Findings f = NcclLogParser.parse(List.of("garbage", "", "x NCCL INFO Using network Socket"));
        NetworkReport r = NcclNetwork.report(f, NO_PORTS, "test");
        assertTrue(r.paths().isEmpty());
        assertTrue(r.summary().contains("not connected yet"), r.summary());
    }

    static List<String> recorded(String name) throws Exception {
        try (var in = NcclLogParserTest.class.getResourceAsStream("/nccl-logs/" + name)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        }
    }

    /** NCCL 2.28.3's own log on two H200s, recorded by benchmarks/gpu/probe.sh (results/gpu-2026-11-22-probe). */
    @Test
    void recordedOnTwoH200sOverNvlink() throws Exception {
        NcclLogParser.Findings f = NcclLogParser.parse(recorded("h200-2gpu-p2p.log"));
        assertEquals("Socket", f.network());
        assertEquals(List.of("lo:127.0.0.1"), f.devices());
        assertEquals(Set.of("P2P/CUMEM"), f.paths());
        assertEquals("NVL", f.intraNodeLink());
        assertEquals(Boolean.FALSE, f.gpuDirectRdma());
        NetworkReport r = NcclNetwork.report(f, NO_PORTS, "test");
        assertTrue(r.summary().startsWith("NCCL connects the ranks through NVLink peer-to-peer (P2P/CUMEM)"), r.summary());
        assertEquals(List.of(), r.warnings());
    }

    @Test
    void recordedOnTwoH200sWithPeerToPeerAndSharedMemoryOff() throws Exception {
        NcclLogParser.Findings f = NcclLogParser.parse(recorded("h200-2gpu-socket.log"));
        assertEquals("Socket", f.network());
        assertEquals(Set.of("NET/Socket"), f.paths());
        NetworkReport r = NcclNetwork.report(f, ACTIVE_ROCE, "test");
        assertTrue(r.summary().startsWith("NCCL connects the ranks through the Socket network (NET/Socket)"), r.summary());
        assertTrue(r.warnings().get(0).startsWith("NCCL chose TCP sockets although RDMA port(s) mlx5_0:1 are ACTIVE"));
    }

    @Test
    void pathsAreNormalised() {
        assertEquals("NET/IB", NcclLogParser.normalise("NET/IB/3"));
        assertEquals("NET/IB/GDRDMA", NcclLogParser.normalise("NET/IB/3/GDRDMA/Shared"));
        assertEquals("SHM", NcclLogParser.normalise("SHM/direct/direct"));
        assertEquals("P2P/direct pointer/read", NcclLogParser.normalise("P2P/direct pointer/read"));
    }
}
