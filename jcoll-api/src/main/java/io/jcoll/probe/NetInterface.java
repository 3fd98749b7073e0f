package io.jcoll.probe;

/**
 * A network interface under {@code /sys/class/net}.
 *
 * @param name       such as {@code eth0}
 * @param operstate  {@code up}, {@code down}, {@code unknown} (loopback and some virtual devices), ...
 * @param mtu        bytes, or -1
 * @param speedMbps  link speed in Mb/s, or -1 (unknown, virtual, or link down)
 * @param loopback   the loopback device ({@code type} 772)
 * @param pciPath    sysfs path of its PCI function, or null for virtual devices
 */
public record NetInterface(String name, String operstate, int mtu, long speedMbps, boolean loopback, String pciPath) {

    /** Up and able to carry traffic ({@code unknown} is how loopback and many virtual devices report "up"). */
    public boolean up() {
        return "up".equals(operstate) || "unknown".equals(operstate);
    }
}
