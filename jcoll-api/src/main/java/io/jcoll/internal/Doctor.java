package io.jcoll.internal;

import io.jcoll.spi.Settings;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code jcoll doctor [--json] [--sysfs-root DIR] [--run [N]]}: what this
 * machine offers (GPUs, RDMA adapters, GPUDirect RDMA, interfaces, launcher),
 * which transport would be chosen and why, the NCCL settings jcoll would apply,
 * and every known trap with its fix. {@code --run} also forms a real job of N
 * ranks as threads here and reports what its transport really used. Exits 1
 * when the requested transport cannot run (or the run failed), 2 on bad arguments.
 */
public final class Doctor {

    private Doctor() {
    }

    public static void main(String[] args) {
        boolean json = false;
        int run = -1;
        Settings settings = Settings.fromEnvironment();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--json" -> json = true;
                case "--sysfs-root" -> {
                    if (i + 1 >= args.length || !Files.isDirectory(Path.of(args[i + 1]))) {
                        usage("--sysfs-root needs a directory laid out like / (with sys/ and proc/)");
                    }
                    settings = settings.with("JCOLL_SYSFS_ROOT", args[++i]);
                }
                case "--run" -> {
                    run = 0;
                    if (i + 1 < args.length && args[i + 1].matches("\\d+")) {
                        run = Integer.parseInt(args[++i]);
                        if (run < 1) {
                            usage("--run needs at least 1 rank");
                        }
                    }
                }
                case "-h", "--help" -> usage(null);
                default -> usage("unknown option '" + args[i] + "'");
            }
        }
        DoctorReport report = new DoctorReport(settings);
        if (run >= 0 && report.chosen != null) {
            report.run = DoctorRun.run(settings, run == 0 ? DoctorRun.defaultRanks(report) : run);
        }
        System.out.print(json ? Json.write(report.toJson()) : report.toText());
        System.out.flush();
        System.exit(report.healthy() ? 0 : 1);
    }

    private static void usage(String problem) {
        if (problem != null) {
            System.err.println("jcoll doctor: " + problem);
        }
        System.err.println("usage: jcoll doctor [--json] [--sysfs-root DIR] [--run [RANKS]]");
        System.exit(problem == null ? 0 : 2);
    }
}
