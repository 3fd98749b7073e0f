package io.jcoll.tcp;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.JobReport;
import io.jcoll.ReduceOp;
import io.jcoll.exceptions.CommunicatorClosedException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code comm.doctor()} on a communicator formed over TCP: three ranks standing for three hosts (their own
 * {@code JCOLL_HOST_ID}), the same report on each, the link test over loopback between every pair, the
 * communicator still usable after, and a closed one refusing by name.
 */
class JobDoctorCallTest {

    @Test
    void everyRankGetsTheSameReportAndTheCommunicatorGoesOn() throws Exception {
        int n = 3;
        int port = TcpGroup.freePort();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<JobReport>> futures = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                int rank = r;
                futures.add(pool.submit(() -> {
                    Communicator comm = TcpGroup.join(rank, n, port, Map.of("JCOLL_HOST_ID", "host-" + rank,
                            "JCOLL_DOCTOR_WAIT", "5s"));
                    try (comm) {
                        JobReport report = comm.doctor();
                        float[] data = {rank + 1f, 2f * rank};
                        comm.allReduce(HostBuffer.of(data), ReduceOp.SUM); // the transport was left alone
                        assertArrayEquals(new float[] {6f, 6f}, data);
                        return report;
                    }
                }));
            }
            List<JobReport> reports = new ArrayList<>();
            for (Future<JobReport> f : futures) {
                reports.add(f.get(120, TimeUnit.SECONDS));
            }
            JobReport report = reports.get(0);
            for (JobReport other : reports) {
                assertEquals(report.json(), other.json());
            }
            assertEquals(List.of("host-0", "host-1", "host-2"), report.hosts());
            assertEquals(6, report.links().size(), report.text());
            assertTrue(report.links().stream().allMatch(l -> l.reachable() && l.gbitPerSecond() > 0.1), report.text());
            assertTrue(report.findings().stream().noneMatch(f -> f.problem().contains("differs")),
                    "every rank probed the same machine: " + report.text());
            assertTrue(report.text().contains("network between hosts") && report.text().contains("host-2"), report.text());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aClosedCommunicatorRefusesTheDoctor() {
        Communicator comm = TcpGroup.join(0, 1, TcpGroup.freePort(), Map.of());
        JobReport alone = comm.doctor();
        assertEquals(1, alone.hosts().size());
        assertEquals(List.of(), alone.links());
        comm.close();
        CommunicatorClosedException e = assertThrows(CommunicatorClosedException.class, comm::doctor);
        assertTrue(e.getMessage().contains("doctor") && e.getMessage().contains("closed"), e.getMessage());
    }
}
