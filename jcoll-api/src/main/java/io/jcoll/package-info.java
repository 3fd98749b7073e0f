/**
 * jcoll's public API: {@link io.jcoll.Jcoll} forms a {@link io.jcoll.Communicator},
 * which runs AllReduce, AllGather, ReduceScatter, All-to-All, Broadcast,
 * Barrier and Send/Recv over {@link io.jcoll.Buffer}s ({@link io.jcoll.HostBuffer}
 * for Java memory) of a {@link io.jcoll.DataType}, reducing with a
 * {@link io.jcoll.ReduceOp}.
 */
package io.jcoll;
