package io.jcoll.internal;

import io.jcoll.JobReport.Finding;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The job-wide comparisons on probes made by hand: what differs is named, what a node did not report is not. */
class JobChecksTest {

    private static NodeProbe probe(int rank, String host, String congestion) {
        Map<String, String> facts = new java.util.LinkedHashMap<>();
        facts.put(NodeProbe.RANK, Integer.toString(rank));
        facts.put(NodeProbe.HOST, host);
        if (congestion != null) {
            facts.put(NodeProbe.CONGESTION, congestion);
        }
        return new NodeProbe(facts, List.of());
    }

    private static List<Finding> congestionFindings(NodeProbe... probes) {
        TreeMap<Integer, NodeProbe> byRank = new TreeMap<>();
        for (NodeProbe p : probes) {
            byRank.put(p.rank(), p);
        }
        return JobChecks.compare(byRank).stream().filter(f -> f.problem().contains("congestion control")).toList();
    }

    @Test
    void aDifferentCongestionControlIsNamedByHost() {
        List<Finding> found = congestionFindings(probe(0, "a", "cubic"), probe(1, "b", "bbr"), probe(2, "c", "cubic"));
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.get(0).problem().contains("cubic on a, c; bbr on b"), found.get(0).problem());
        assertEquals(List.of("b"), found.get(0).hosts());
    }

    @Test
    void aNodeThatDidNotReportTheFactIsNotADifference() {
        assertEquals(List.of(), congestionFindings(probe(0, "a", "cubic"), probe(1, "b", null), probe(2, "c", "cubic")));
        assertEquals(List.of(), congestionFindings(probe(0, "a", "bbr"), probe(1, "b", "bbr")));
    }
}
