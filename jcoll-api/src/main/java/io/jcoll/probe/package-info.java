/**
 * What this machine offers a collective job, read the way the setup guides tell
 * users to check by hand: GPUs, RDMA adapters and their ports, GPUDirect RDMA,
 * network interfaces and the route to the master, and the launcher. Everything
 * is read from files under one root directory ({@link io.jcoll.probe.SystemFiles}),
 * so the same code runs on fixture trees of real machines in tests.
 * {@link io.jcoll.probe.NcclAdvisor} turns a {@link io.jcoll.probe.Machine}
 * into the NCCL settings and warnings a careful operator would give.
 */
package io.jcoll.probe;
