/**
 * The NCCL transport: {@link io.jcoll.nccl.NcclTransportProvider} says whether this
 * rank can run it; the transport creates the NCCL communicator (its unique id
 * through jcoll's rendezvous store), runs every call on a CUDA stream with a
 * watchdog that aborts it on timeout or NCCL error, prepares NCCL's environment
 * from the machine probe and routes its log ({@code NcclEnvironment}), and reads
 * from that log what NCCL really used ({@code NcclNetwork}).
 * {@link io.jcoll.nccl.NcclAccess} is what a communicator's {@code unwrap} offers.
 */
package io.jcoll.nccl;
