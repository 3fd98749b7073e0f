package io.jcoll.probe;

import java.util.ArrayList;
import java.util.List;

/**
 * NCCL's syntax for lists of interfaces and adapters ({@code NCCL_SOCKET_IFNAME},
 * {@code NCCL_IB_HCA}): comma-separated names, each a prefix unless the list
 * starts with {@code =} (exact names); a leading {@code ^} excludes the names
 * instead. {@code NCCL_IB_HCA} entries may carry a port: {@code mlx5_0:1}.
 */
record NcclNameList(boolean exclude, boolean exact, List<String> entries) {

    static NcclNameList parse(String value) {
        String v = value.trim();
        boolean exclude = v.startsWith("^");
        if (exclude) {
            v = v.substring(1);
        }
        boolean exact = v.startsWith("=");
        if (exact) {
            v = v.substring(1);
        }
        List<String> entries = new ArrayList<>();
        for (String e : v.split(",")) {
            if (!e.isBlank()) {
                entries.add(e.trim());
            }
        }
        return new NcclNameList(exclude, exact, entries);
    }

    /** Whether one entry (its port part ignored) names {@code name}. */
    boolean entryMatches(String entry, String name) {
        int colon = entry.indexOf(':');
        String device = colon < 0 ? entry : entry.substring(0, colon);
        return exact ? name.equals(device) : name.startsWith(device);
    }

    /** Whether NCCL would consider {@code name} under this list. */
    boolean admits(String name) {
        boolean named = entries.stream().anyMatch(e -> entryMatches(e, name));
        return exclude != named;
    }
}
