/**
 * The native layer: finding and loading the host's CUDA runtime and NCCL
 * ({@link io.jcoll.gpu.LibraryFinder}, {@link io.jcoll.gpu.GpuRuntime}), the one
 * thin layer that makes every checked CUDA and NCCL call ({@link io.jcoll.gpu.Cuda},
 * {@link io.jcoll.gpu.Nccl}), and GPU memory ({@link io.jcoll.gpu.DeviceBuffer}).
 */
package io.jcoll.gpu;
