/**
 * MPI for jcoll, reached at run time through JNA ({@code MpiLibrary}, {@code MpiNative},
 * {@code MpiAbi} for Open MPI's and MPICH's handles): the rendezvous of a job that
 * {@code mpirun} or {@code srun} placed ({@link io.jcoll.mpi.MpiRendezvousExchange}, one
 * broadcast of rank 0's store address), MPI's lifetime in the process ({@code MpiRuntime}),
 * and the {@code mpi} transport for host buffers ({@link io.jcoll.mpi.MpiTransportProvider}).
 */
package io.jcoll.mpi;
