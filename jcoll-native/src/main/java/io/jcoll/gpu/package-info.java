/**
 * The native layer: finding and loading the host's CUDA runtime and NCCL
 * ({@link io.jcoll.probe.LibraryFinder}, {@link io.jcoll.gpu.GpuRuntime}), the one
 * thin layer that makes every checked CUDA and NCCL call ({@link io.jcoll.gpu.Cuda},
 * {@link io.jcoll.gpu.Nccl}), GPU memory ({@link io.jcoll.gpu.DeviceBuffer}),
 * page-locked host memory for transports' stages ({@link io.jcoll.gpu.PinnedHostMemory}),
 * and the process environment native libraries read ({@link io.jcoll.gpu.ProcessEnvironment}).
 */
package io.jcoll.gpu;
