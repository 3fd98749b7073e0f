package io.jcoll.tcp;

import io.jcoll.testing.Commands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The multi-host bench's links with added delay ({@code hosts.sh up N --rate R --delay D}): tc's netem where the
 * kernel has it, else the bench's user-space switch ({@code benchmarks/netns/delayline.c}, this CI's kernel has no
 * netem). Two hosts, 5 ms a link and 1 Gbit/s: a job's 4-byte round trip must take the two crossings' 10 ms (and
 * not much more), and 32 MB from one host to the other must arrive intact at close to the link's rate, as a
 * figure taken over these links assumes. Needs root, as every namespace test does.
 */
class DelayedLinksTest {

    private static final Map<String, String> ENV = Map.of("MASTER_PORT", "29512");
    private static final double LINK_GBS = 0.125;
    private static final double DELAY_MS = 5;

    @BeforeAll
    static void twoHosts() throws Exception {
        Assumptions.assumeTrue(Commands.onPath("gcc"), "SKIPPED: no gcc (the user-space switch is built on the spot)");
        NamespaceHosts.upOrSkip(List.of("2", "--rate", "1gbit", "--delay", "5ms"), ENV);
    }

    @AfterAll
    static void down() throws Exception {
        NamespaceHosts.down();
    }

    @Test
    void aRoundTripTakesBothDelaysAndALargeMessageArrivesIntactNearTheLinkRate() throws Exception {
        // Both figures are timings, and this 2-core VM's host sometimes stalls it for seconds (a CI run once got 11.9
        // ms and 0.0856 GB/s, where 10.5-10.8 ms and 0.112-0.115 GB/s are usual, even beside a busy core). A link
        // that is set wrong misses on every measurement, a stall on one: so a miss is measured once more, by a new
        // pair of ranks, and the test fails only when both miss. Bytes that arrive wrong fail at once.
        List<String> misses = new ArrayList<>();
        for (int attempt = 0; attempt < 2; attempt++) {
            String miss = measureOnce();
            if (miss == null) {
                return;
            }
            misses.add(miss);
        }
        fail(String.join("\n", misses));
    }

    /** One probe of the link by a new pair of ranks: null where both figures are as set, else what missed. */
    private static String measureOnce() throws Exception {
        Commands.Result r = NamespaceHosts.run(List.of("place", "0 1", "JCOLL_TIMEOUT=60s", "--", Commands.java(), "-cp",
                System.getProperty("java.class.path"), "io.jcoll.tcp.it.LinkProbeMain", "20", "32"), ENV, 180);
        assertEquals(0, r.exit(), r.output());
        Matcher m = Pattern.compile("rank 0: link: rtt-ms ([0-9.]+) rate-gbs ([0-9.]+)").matcher(r.output());
        assertTrue(m.find(), r.output());
        System.out.println("delayed links: " + m.group());
        double rtt = Double.parseDouble(m.group(1));
        double rate = Double.parseDouble(m.group(2));
        if (rtt < 2 * DELAY_MS) {
            // faster than the delays allow is never a stall: the delay is not applied
            fail("round trip " + rtt + " ms over two links of " + DELAY_MS + " ms\n" + r.output());
        }
        if (rate >= 1.02 * LINK_GBS) {
            fail("32 MB at " + rate + " GB/s over a " + LINK_GBS + " GB/s link: the rate is not applied\n"
                    + r.output());
        }
        if (rtt >= 2 * DELAY_MS + 5) {
            return "round trip " + rtt + " ms over two links of " + DELAY_MS + " ms\n" + r.output();
        }
        if (rate <= 0.75 * LINK_GBS) {
            return "32 MB at " + rate + " GB/s over a " + LINK_GBS + " GB/s link\n" + r.output();
        }
        return null;
    }
}
