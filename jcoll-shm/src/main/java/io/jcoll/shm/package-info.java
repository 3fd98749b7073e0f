/**
 * The shared-memory transport for the ranks of one host: one segment per communicator, mapped by every rank,
 * where each rank reads its peers' contributions directly instead of through the kernel.
 * {@link io.jcoll.shm.Segment} owns the file and its mapping, {@link io.jcoll.shm.Layout} says where everything
 * lies in it, {@link io.jcoll.shm.Control} reads and writes the ranks' counters, {@link io.jcoll.shm.Slots} paces
 * the collectives through each rank's slots (a {@link io.jcoll.shm.Crew} of helper threads sharing a rank's large
 * copies), one algorithm per file uses them, and {@link io.jcoll.shm.PairRings}
 * carries point-to-point messages for the algorithms shared with the TCP transport.
 */
package io.jcoll.shm;
