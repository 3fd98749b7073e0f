package io.jcoll.spi;

/** The operations a transport executes, with the names used in messages. */
public enum Operation {
    ALL_REDUCE("allReduce"),
    ALL_GATHER("allGather"),
    REDUCE_SCATTER("reduceScatter"),
    ALL_TO_ALL("allToAll"),
    BROADCAST("broadcast"),
    BARRIER("barrier"),
    SEND("send"),
    RECV("recv");

    private final String label;

    Operation(String label) {
        this.label = label;
    }

    /** The method name, as users call it. */
    public String label() {
        return label;
    }

    /** Whether every rank takes part (and so shares the collective sequence number). */
    public boolean isCollective() {
        return this != SEND && this != RECV;
    }

    @Override
    public String toString() {
        return label;
    }
}
