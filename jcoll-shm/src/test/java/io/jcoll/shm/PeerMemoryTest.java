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

/** Reading a process's memory with process_vm_readv: what single copy rests on, and how it fails. */
class PeerMemoryTest {

    private static final long ME = ProcessHandle.current().pid();

    private static void assumeBound() {
        assumeTrue(ProcessVmRead.unavailableReason() == null, ProcessVmRead.unavailableReason());
    }

    /** Before JDK 22 there is no binding, and the probe says why (the ranks then take the slots). */
    @Test
    void olderJdksSayWhy() {
        assumeTrue(Runtime.version().feature() < 22);
        String[] why = {null};
        assertNull(PeerMemory.probe(0, new long[] {ME, ME}, new long[2], new long[2], why));
        assertTrue(why[0].contains("JDK 22 or later"), why[0]);
        assertEquals(0, ProcessVmRead.address(ByteBuffer.allocateDirect(8)));
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
        long address = ProcessVmRead.address(source.slice(from, length));
        assertEquals(ProcessVmRead.address(source) + from, address);
        ByteBuffer canary = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder()).putLong(0, rnd.nextLong());
        String[] why = {null};
        PeerMemory memory = PeerMemory.probe(0, new long[] {ME, ME}, new long[] {0, ProcessVmRead.address(canary)},
                new long[] {0, canary.getLong(0)}, why);
        assertNotNull(memory, why[0]);
        ByteBuffer copy = ByteBuffer.allocateDirect(length);
        memory.read(1, address, copy, "test");
        assertEquals(length, copy.position());
        assertEquals(source.slice(from, length), copy.flip());
        ByteBuffer heap = ByteBuffer.allocate(length);
        memory.read(1, address, heap, "test");
        assertEquals(source.slice(from, length), heap.flip());
        assertEquals(0, ProcessVmRead.address(ByteBuffer.allocate(64)), "a heap buffer has no address");
    }

    /** A word that is not what the peer published: its pid names some other process; no single copy. */
    @Test
    void aWrongCanaryTurnsSingleCopyOff() {
        assumeBound();
        ByteBuffer canary = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder()).putLong(0, 42);
        String[] why = {null};
        assertNull(PeerMemory.probe(1, new long[] {ME, ME}, new long[] {ProcessVmRead.address(canary), 0},
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
