package io.jcoll.internal;

import io.jcoll.spi.Settings;
import io.jcoll.testing.JsonReader;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jcoll doctor} on the fixture machines: the text and the documented JSON document. */
class DoctorReportTest {

    static DoctorReport on(String machine, String... kv) {
        Settings s = Settings.of(Map.of()).with("JCOLL_SYSFS_ROOT", "src/test/machines/" + machine);
        for (int i = 0; i < kv.length; i += 2) {
            s = s.with(kv[i], kv[i + 1]);
        }
        return new DoctorReport(s);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> json(DoctorReport r) {
        return (Map<String, Object>) JsonReader.parse(Json.write(r.toJson()));
    }

    @Test
    @SuppressWarnings("unchecked")
    void roceNodeAsJson() {
        Map<String, Object> doc = json(on("roce-cx6-mtu9000", "MASTER_ADDR", "10.20.0.7", "OMPI_COMM_WORLD_RANK", "0",
                "OMPI_COMM_WORLD_SIZE", "2"));
        assertEquals(1.0, doc.get("schema"));
        assertEquals("Open MPI", ((Map<String, Object>) doc.get("launcher")).get("name"));
        Map<String, Object> gpus = (Map<String, Object>) doc.get("gpus");
        assertEquals("570.86.15", gpus.get("driver_version"));
        List<Map<String, Object>> devices = (List<Map<String, Object>>) gpus.get("devices");
        assertEquals(4, devices.size());
        assertEquals("PHB", ((Map<String, Object>) devices.get(3).get("nearest_rdma")).get("distance"));
        Map<String, Object> port = ((List<Map<String, Object>>) ((List<Map<String, Object>>) doc.get("rdma_adapters"))
                .get(0).get("ports")).get(0);
        assertEquals("Ethernet", port.get("link_layer"));
        assertEquals(3.0, port.get("roce_v2_gid_index"));
        assertEquals(Boolean.TRUE, port.get("active"));
        assertEquals("nvidia_peermem (/sys/module/nvidia_peermem)",
                ((Map<String, Object>) doc.get("gpudirect_rdma")).get("peer_memory_module"));
        assertEquals("ens1f0np0", ((Map<String, Object>) doc.get("master")).get("interface"));
        List<Map<String, Object>> settings = (List<Map<String, Object>>) doc.get("nccl_settings");
        assertEquals(List.of("NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_SOCKET_IFNAME", "NCCL_NET_GDR_LEVEL"),
                settings.stream().map(m -> m.get("name")).toList());
        assertEquals("3", settings.get(1).get("value"));
        assertEquals(Boolean.TRUE, settings.get(1).get("applies"));
        assertEquals(List.of(), doc.get("warnings"));
        assertTrue(doc.containsKey("transports") && doc.containsKey("selection") && doc.containsKey("job"));
        assertNull(doc.get("run"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void warningsCarryTheirFixes() {
        DoctorReport r = on("ib-port-down", "NCCL_IB_DISABLE", "1");
        List<Map<String, Object>> warnings = (List<Map<String, Object>>) json(r).get("warnings");
        assertEquals(1, warnings.size(), "the disable flag is harmless when no port is active: " + warnings);
        assertTrue(((String) warnings.get(0).get("problem")).contains("mlx5_0:1"));
        assertTrue(((String) warnings.get(0).get("fix")).contains("ibstat mlx5_0"));
        String text = r.toText();
        assertTrue(text.contains("! RDMA port mlx5_0:1 (InfiniBand) is 1: DOWN"), text);
        assertTrue(text.contains("fix: check the cable"), text);
    }

    @Test
    void askingForAMissingTransportIsUnhealthy() {
        // this module's tests have no transport on the class path, so nothing can run
        DoctorReport r = on("cloud-vm-ethernet", "JCOLL_TRANSPORT", "tcp");
        assertNull(r.chosen);
        assertFalse(r.healthy());
        assertTrue(r.toText().contains("NOTHING CAN RUN: JCOLL_TRANSPORT=tcp but no such transport is on the class path"),
                r.toText());
    }

    @Test
    void stringsAreEscaped() {
        Object back = JsonReader.parse(Json.write(Map.of("k", "quote \" backslash \\ newline \n tab \t bell \u0007")));
        assertEquals(Map.of("k", "quote \" backslash \\ newline \n tab \t bell \u0007"), back);
    }
}
