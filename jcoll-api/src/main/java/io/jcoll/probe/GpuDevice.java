package io.jcoll.probe;

/**
 * A GPU the NVIDIA kernel driver knows, from {@code /proc/driver/nvidia/gpus/BUS/information}.
 *
 * @param minor     {@code Device Minor}: the {@code /dev/nvidiaN} number
 * @param model     such as {@code NVIDIA H100 80GB HBM3}
 * @param busId     PCI address, such as {@code 0000:18:00.0}
 * @param pciPath   its sysfs path (its place in the PCI tree), or null
 * @param numaNode  its NUMA node, or -1
 */
public record GpuDevice(int minor, String model, String busId, String pciPath, int numaNode) {
}
