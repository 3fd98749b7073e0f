package io.jcoll.shm;

import io.jcoll.exceptions.PeerFailureException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Reading a process's memory with process_vm_readv, and writing it with process_vm_writev within what it granted:
 * what single copy rests on, and how it fails.
 */
class PeerMemoryTest {

    private static final long ME = ProcessHandle.current().pid();

    private static void assumeBound() {
        assumeTrue(ProcessVm.unavailableReason() == null, ProcessVm.unavailableReason());
    }

    /** Before JDK 22 there is no binding, and the probe says why (the ranks then take the slots). */
    @Test
    void olderJdksSayWhy() {
        assumeTrue(Runtime.version().feature() < 22);
        String[] why = {null};
        assertNull(PeerMemory.probe(0, new long[] {ME, ME}, new long[2], new long[2], why));
        assertTrue(why[0].contains("JDK 22 or later"), why[0]);
        assertEquals(0, ProcessVm.address(ByteBuffer.allocateDirect(8)));
    }

    /**
     * A direct buffer of this process, read as a peer reads it (rank 1 here names this process), byte for byte,
     * into a direct buffer and into a heap buffer larger than the bounce buffer.
     */
    @Test
    void readsADirectBufferByItsAddress() {
        assumeBound();
        SplittableRandom rnd = new SplittableRandom();
        int length = (300 << 10) + rnd.nextInt(3 << 20);
        ByteBuffer source = ByteBuffer.allocateDirect(length + 64);
        for (int i = 0; i < source.capacity(); i++) {
            source.put(i, (byte) rnd.nextInt());
        }
        int from = rnd.nextInt(64);
        long address = ProcessVm.address(source.slice(from, length));
        assertEquals(ProcessVm.address(source) + from, address);
        PeerMemory memory = probedWith(new WriteGrant(rnd.nextLong()));
        ByteBuffer copy = ByteBuffer.allocateDirect(length);
        memory.read(1, address, copy, "test");
        assertEquals(length, copy.position());
        assertEquals(source.slice(from, length), copy.flip());
        ByteBuffer heap = ByteBuffer.allocate(length);
        memory.read(1, address, heap, "test");
        assertEquals(source.slice(from, length), heap.flip());
        assertEquals(0, ProcessVm.address(ByteBuffer.allocate(64)), "a heap buffer has no address");
    }

    /** This process as rank 1 of two, its grant's canary read as the probe reads it. */
    private static PeerMemory probedWith(WriteGrant grant) {
        String[] why = {null};
        PeerMemory memory = PeerMemory.probe(0, new long[] {ME, ME}, new long[] {0, grant.address()},
                new long[] {0, grant.canary()}, why);
        assertNotNull(memory, why[0]);
        return memory;
    }

    /**
     * A peer's memory written as an in-place broadcast's root writes its share: only within the range the peer's
     * own record grants for the current call. A random range of a direct buffer, written at a random offset; the
     * bytes outside it untouched.
     */
    @Test
    void writesWithinTheRangeAPeerGranted() {
        assumeBound();
        SplittableRandom rnd = new SplittableRandom();
        int length = (64 << 10) + rnd.nextInt(1 << 20);
        ByteBuffer target = ByteBuffer.allocateDirect(length + 128);
        int from = rnd.nextInt(64);
        WriteGrant grant = new WriteGrant(rnd.nextLong());
        grant.grant(7, ProcessVm.address(target) + from, length);
        PeerMemory memory = probedWith(grant);
        WriteGrant.Range range = memory.granted(1, 7, length, "test");
        int offset = rnd.nextInt(length);
        ByteBuffer source = ByteBuffer.allocateDirect(length - offset);
        for (int i = 0; i < source.capacity(); i++) {
            source.put(i, (byte) (rnd.nextInt(255) + 1));
        }
        long writtenBefore = PeerMemory.kernelWriteBytes();
        memory.write(1, range, offset, source.duplicate(), "test");
        assertTrue(PeerMemory.kernelWriteBytes() - writtenBefore >= source.capacity());
        assertEquals(source, target.slice(from + offset, length - offset));
        for (int i = 0; i < from + offset; i++) {
            assertEquals(0, target.get(i), "byte " + i + ", before the write");
        }
        for (int i = from + length; i < target.capacity(); i++) {
            assertEquals(0, target.get(i), "byte " + i + ", past the grant");
        }
        assertThrows(IllegalArgumentException.class,
                () -> memory.write(1, range, offset + 1, source.duplicate(), "test"), "one byte past the grant");
        assertThrows(IllegalArgumentException.class,
                () -> memory.write(1, range, -1, source.slice(0, 1), "test"), "before the grant");
    }

    /**
     * What the segment says does not steer a write: a record for another call, one that grants less than the call
     * needs, and one whose canary is gone (another process's memory, or a record overwritten) each fail the
     * writer's call, naming the peer, before a byte is written.
     */
    @Test
    void aGrantForAnotherCallOrTooShortIsRefused() throws java.io.IOException {
        assumeBound();
        ByteBuffer target = ByteBuffer.allocateDirect(4096);
        WriteGrant grant = new WriteGrant(new SplittableRandom().nextLong());
        grant.grant(3, ProcessVm.address(target), 4096);
        PeerMemory memory = probedWith(grant);
        PeerFailureException stale = assertThrows(PeerFailureException.class,
                () -> memory.granted(1, 4, 4096, "broadcast"));
        assertTrue(stale.getMessage().contains("rank 1's own record grants 4096 bytes in call #3")
                && stale.getMessage().contains("call #4"), stale.getMessage());
        PeerFailureException tooShort = assertThrows(PeerFailureException.class,
                () -> memory.granted(1, 3, 4097, "broadcast"));
        assertTrue(tooShort.getMessage().contains("overwrote the segment"), tooShort.getMessage());
        ByteBuffer otherCanary = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder())
                .putLong(0, grant.canary() + 1);
        ProcessVm.write(ME, grant.address() + WriteGrant.CANARY_AT, otherCanary); // as if the record were not its
        PeerFailureException gone = assertThrows(PeerFailureException.class,
                () -> memory.granted(1, 3, 4096, "broadcast"));
        assertTrue(gone.getMessage().contains("its canary is gone"), gone.getMessage());
        PeerFailureException unknown = assertThrows(PeerFailureException.class,
                () -> PeerMemory.of(0, new long[] {ME, ME}).granted(1, 3, 1, "broadcast"));
        assertTrue(unknown.getMessage().contains("never read"), unknown.getMessage());
        assertEquals(0, target.get(0), "nothing written");
    }

    /** A word that is not what the peer published: its pid names some other process; no single copy. */
    @Test
    void aWrongCanaryTurnsSingleCopyOff() {
        assumeBound();
        ByteBuffer canary = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder()).putLong(0, 42);
        String[] why = {null};
        assertNull(PeerMemory.probe(1, new long[] {ME, ME}, new long[] {ProcessVm.address(canary), 0},
                new long[] {43, 0}, why));
        assertTrue(why[0].contains("does not hold rank 0's canary"), why[0]);
    }

    /** Addresses nothing is mapped at, and a process that has exited: clear failures naming the peer, no crash. */
    @Test
    void unmappedAddressesAndExitedPeersFailNamingThePeer() throws Exception {
        assumeBound();
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            PeerMemory memory = PeerMemory.of(0, new long[] {ME, sleeper.pid()});
            PeerFailureException unmapped = assertThrows(PeerFailureException.class,
                    () -> memory.read(1, 8, ByteBuffer.allocateDirect(16), "allToAll"));
            assertEquals(1, unmapped.peer());
            assertTrue(unmapped.getMessage().contains("EFAULT"), unmapped.getMessage());
            sleeper.destroyForcibly();
            assertTrue(sleeper.waitFor(10, TimeUnit.SECONDS));
            PeerFailureException exited = assertThrows(PeerFailureException.class,
                    () -> memory.read(1, 4096, ByteBuffer.allocate(16), "allToAll"));
            assertEquals(1, exited.peer());
            assertTrue(exited.getMessage().contains("ESRCH"), exited.getMessage());
        } finally {
            sleeper.destroyForcibly();
        }
    }
}
