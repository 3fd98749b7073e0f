package io.jcoll.tcp;

import io.jcoll.spi.Settings;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the TCP transport reads the settings that shape its threads: channels per rank, and yielding while spinning. */
class TcpSettingsTest {

    private static final Settings NONE = Settings.of(Map.of());

    @Test
    void channelsDefaultToTheCoresEachRankHasToItselfUpToFour() {
        assertEquals(4, ChannelPlan.from(NONE, 8, 32).channels());
        assertEquals(2, ChannelPlan.from(NONE, 8, 16).channels());
        assertEquals(4, ChannelPlan.from(NONE, 2, 32).channels());
        assertEquals(1, ChannelPlan.from(NONE, 4, 2).channels()); // oversubscribed: one each
        assertEquals(3, ChannelPlan.from(Settings.of(Map.of("JCOLL_TCP_CHANNELS", "3")), 8, 2).channels());
        ChannelPlan plan = ChannelPlan.from(NONE, 2, 8);
        assertEquals(1, plan.channelsFor(1 << 20)); // a part is at least a megabyte
        assertEquals(3, plan.channelsFor(3L << 20));
        assertEquals(4, plan.channelsFor(1L << 30));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ChannelPlan.from(Settings.of(Map.of("JCOLL_TCP_CHANNELS", "9")), 2, 8));
        assertTrue(e.getMessage().contains("JCOLL_TCP_CHANNELS"), e.getMessage());
    }

    @Test
    void aSpinningWaitYieldsWhenOversubscribedOrWhenTold() {
        assertTrue(TcpTransport.yieldWhileSpinning(NONE, 4, 2));
        assertFalse(TcpTransport.yieldWhileSpinning(NONE, 2, 2));
        assertFalse(TcpTransport.yieldWhileSpinning(NONE, 8, 16));
        assertTrue(TcpTransport.yieldWhileSpinning(Settings.of(Map.of("JCOLL_TCP_YIELD", "1")), 8, 16));
        assertFalse(TcpTransport.yieldWhileSpinning(Settings.of(Map.of("JCOLL_TCP_YIELD", "0")), 4, 2));
        assertFalse(TcpTransport.yieldWhileSpinning(Settings.of(Map.of("JCOLL_TCP_YIELD", "auto")), 2, 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TcpTransport.yieldWhileSpinning(Settings.of(Map.of("JCOLL_TCP_YIELD", "yes")), 2, 2));
        assertTrue(e.getMessage().contains("JCOLL_TCP_YIELD") && e.getMessage().contains("yes"), e.getMessage());
    }
}
