package io.jcoll.probe;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The user-space half of RDMA: an adapter the kernel shows is of no use to
 * NCCL unless it can open {@code libibverbs.so.1} and the adapter's provider
 * (rdma-core's {@code libibverbs/libmlx5-rdmav34.so} plugin, or the
 * {@code libmlx5.so.1} it ships beside it). Without them NCCL says "NET/IB :
 * No device found" once, at INFO level, and runs over sockets: the most common
 * cause of a node several times slower than its peers. Searched the way jcoll
 * finds libnccl ({@link LibraryFinder}).
 *
 * @param verbs     where {@code libibverbs.so.1} was found, or null
 * @param providers for each provider the adapters need ({@code mlx5}), where it was found, or null
 * @param looked    for each library missed, where it was looked for
 */
public record RdmaLibraries(String verbs, Map<String, String> providers, Map<String, String> looked) {

    static final String VERBS = "libibverbs.so.1";

    /** Adapter name prefixes and the rdma-core provider each needs. */
    private static final List<String[]> PROVIDERS = List.of(new String[] {"mlx5_", "mlx5"},
            new String[] {"mlx4_", "mlx4"}, new String[] {"bnxt_re", "bnxt_re"}, new String[] {"irdma", "irdma"},
            new String[] {"efa", "efa"}, new String[] {"rdmap", "efa"}, new String[] {"rxe", "rxe"},
            new String[] {"siw", "siw"}, new String[] {"hns_", "hns"}, new String[] {"qedr", "qedr"},
            new String[] {"erdma", "erdma"}, new String[] {"mana", "mana"}, new String[] {"ionic", "ionic"});

    private static final List<String> LIBRARY_DIRS = List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
            "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu");

    public RdmaLibraries {
        providers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(providers));
        looked = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(looked));
    }

    /** Searches for the libraries {@code adapters} need; null when there are no adapters (nothing is needed). */
    public static RdmaLibraries find(SystemFiles files, List<RdmaAdapter> adapters, Map<String, String> env) {
        if (adapters.isEmpty()) {
            return null;
        }
        LibraryFinder finder = LibraryFinder.of(files, env);
        Map<String, String> looked = new LinkedHashMap<>();
        LibraryFinder.Search verbs = finder.find(VERBS, "JCOLL_IBVERBS_LIBRARY", List.of());
        if (verbs.found() == null) {
            looked.put(VERBS, String.join(", ", verbs.looked()));
        }
        Map<String, String> providers = new LinkedHashMap<>();
        for (RdmaAdapter a : adapters) {
            String provider = providerOf(a.name());
            if (provider == null || providers.containsKey(provider)) {
                continue;
            }
            String plugin = plugin(files, provider);
            if (plugin == null) {
                LibraryFinder.Search direct = finder.find("lib" + provider + ".so.1", null, List.of());
                plugin = direct.found() == null ? null : direct.found().path().toString();
                if (plugin == null) {
                    looked.put(provider, "libibverbs/lib" + provider + "-rdmav*.so under " + String.join(", ", LIBRARY_DIRS)
                            + "; " + String.join(", ", direct.looked()));
                }
            }
            providers.put(provider, plugin);
        }
        return new RdmaLibraries(verbs.found() == null ? null : verbs.found().path().toString(), providers, looked);
    }

    static String providerOf(String adapter) {
        for (String[] p : PROVIDERS) {
            if (adapter.startsWith(p[0])) {
                return p[1];
            }
        }
        return null;
    }

    /** rdma-core's provider plugin ({@code libibverbs/libmlx5-rdmav34.so}) in a system library directory. */
    private static String plugin(SystemFiles files, String provider) {
        for (String dir : LIBRARY_DIRS) {
            for (String name : files.list(dir + "/libibverbs")) {
                if (name.startsWith("lib" + provider + "-rdmav") && name.endsWith(".so")) {
                    return dir + "/libibverbs/" + name;
                }
            }
        }
        return null;
    }

    /** The libraries that were not found: {@code libibverbs.so.1}, {@code mlx5 provider}. */
    public List<String> missing() {
        List<String> m = new java.util.ArrayList<>();
        if (verbs == null) {
            m.add(VERBS);
        }
        providers.forEach((p, where) -> {
            if (where == null) {
                m.add("the " + p + " provider (lib" + p + "-rdmav*.so / lib" + p + ".so.1)");
            }
        });
        return m;
    }
}
