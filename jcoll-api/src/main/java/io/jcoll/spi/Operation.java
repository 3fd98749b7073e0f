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
    RECV("recv"),
    // appended, so that the ordinals already on the wire keep their meaning
    REDUCE("reduce"),
    GATHER("gather"),
    SCATTER("scatter"),
    ALL_TO_ALL_V("allToAllV"),
    /** The exchange of colors and keys that forms sub-communicators: an allGather of its own kind. */
    SPLIT("split"),
    /** Several calls issued as one ({@link Call#members()}); its collectives carry their own numbers. */
    GROUP("group");

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
        return this != SEND && this != RECV && this != GROUP;
    }

    /** Whether the call has a root rank ({@link Call#root()}) that sends or receives for everyone. */
    public boolean isRooted() {
        return this == BROADCAST || this == REDUCE || this == GATHER || this == SCATTER;
    }

    @Override
    public String toString() {
        return label;
    }
}
