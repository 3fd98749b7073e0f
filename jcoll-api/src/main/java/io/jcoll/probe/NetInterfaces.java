package io.jcoll.probe;

import java.util.ArrayList;
import java.util.List;

/** Reads {@code /sys/class/net/*}: {@code operstate}, {@code mtu}, {@code speed}, {@code type}. */
public final class NetInterfaces {

    static final String CLASS_DIR = "/sys/class/net";
    private static final long ARPHRD_LOOPBACK = 772;

    private NetInterfaces() {
    }

    public static List<NetInterface> read(SystemFiles files) {
        List<NetInterface> list = new ArrayList<>();
        for (String name : files.list(CLASS_DIR)) {
            String dir = CLASS_DIR + "/" + name;
            if (!files.exists(dir + "/operstate")) {
                continue; // bonding_masters and other plain files live here too
            }
            long speed = files.readLong(dir + "/speed", -1); // EINVAL while the link is down; -1 on virtual links
            list.add(new NetInterface(name, files.read(dir + "/operstate").orElse("unknown"),
                    (int) files.readLong(dir + "/mtu", -1), speed > 0 ? speed : -1,
                    files.readLong(dir + "/type", -1) == ARPHRD_LOOPBACK,
                    files.realPath(dir + "/device").orElse(null)));
        }
        return list;
    }
}
