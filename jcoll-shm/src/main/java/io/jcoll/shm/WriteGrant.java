package io.jcoll.shm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A rank's own record, in its private memory, of the one range of its memory that its peers may write during its
 * current call: a broadcast's root writes its share of each receiver's output, a gather's rank its block of each
 * receiving peer's ({@link SingleCopy}). The segment could say where, but any process of the same user can overwrite
 * the segment, and a write steered by it would land anywhere in this JVM. Only this process writes its record, so a
 * peer reads it ({@link PeerMemory#granted}) and writes nothing outside it ({@link PeerMemory#write}). Its first word
 * is the canary that {@link PeerMemory#probe} reads when the communicator forms. That proves the record's address
 * names this rank's memory, and peers keep the address from then on, so nothing in the segment points them elsewhere.
 */
final class WriteGrant {

    /** The record's bytes: its canary, the call it is for, and the granted range's address and length. */
    static final int BYTES = 32;
    static final int CANARY_AT = 0;
    static final int CALL_AT = 8;
    static final int ADDRESS_AT = 16;
    static final int LENGTH_AT = 24;

    private final ByteBuffer record = ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());

    WriteGrant(long canary) {
        record.putLong(CANARY_AT, canary);
    }

    /** The record's address in this process, for peers to read; 0 where process_vm_readv is unavailable. */
    long address() {
        return ProcessVm.address(record);
    }

    long canary() {
        return record.getLong(CANARY_AT);
    }

    /**
     * Lets peers write {@code [address, address + length)} of this process's memory during this rank's call number
     * {@code call} (counted alike on every rank): the grant of any earlier call lapses. Made before the rank publishes
     * that it takes writes, so a peer that reads it after seeing that reads this call's grant.
     */
    void grant(long call, long address, long length) {
        record.putLong(ADDRESS_AT, address).putLong(LENGTH_AT, length).putLong(CALL_AT, call);
    }

    /** A range a peer granted in one call, as its record said. */
    record Range(long address, long length) {

        /** Whether {@code [offset, offset + bytes)} of the range lies within it. */
        boolean holds(long offset, long bytes) {
            return offset >= 0 && bytes >= 0 && offset <= length - bytes;
        }
    }
}
