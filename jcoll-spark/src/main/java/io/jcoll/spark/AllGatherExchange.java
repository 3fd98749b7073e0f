package io.jcoll.spark;

import io.jcoll.spi.RendezvousExchange;
import org.apache.spark.BarrierTaskContext;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Hands rank 0's rendezvous message to every task of a barrier stage with one {@code allGather}: partition 0
 * sends the message, the others an empty string. Spark's coordinator does the rest, and the message is never
 * seen outside the stage's tasks and the driver.
 */
final class AllGatherExchange implements RendezvousExchange {

    private final BarrierTaskContext task;

    AllGatherExchange(BarrierTaskContext task) {
        this.task = task;
    }

    @Override
    public byte[] broadcastFromRankZero(byte[] message) {
        if (message.length > MAX_BYTES) {
            throw new IllegalArgumentException("a rendezvous message holds at most " + MAX_BYTES + " bytes");
        }
        boolean zero = task.partitionId() == 0;
        String[] all = task.allGather(zero ? Base64.getEncoder().encodeToString(message) : "");
        if (all.length == 0 || all[0] == null || all[0].isEmpty()) { // ordered by partition id
            throw new IllegalStateException("partition 0 sent no rendezvous message through allGather ("
                    + all.length + " messages came back)");
        }
        try {
            return Base64.getDecoder().decode(all[0].getBytes(StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("partition 0's allGather message is not one jcoll wrote: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        // the stage owns the channel
    }
}
