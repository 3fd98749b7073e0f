package io.jcoll.nccl;

import io.jcoll.gpu.ProcessEnvironment;
import io.jcoll.probe.Machine;
import io.jcoll.probe.NcclAdvice;
import io.jcoll.probe.NcclAdvisor;
import io.jcoll.probe.NcclSetting;
import io.jcoll.probe.Warning;
import io.jcoll.spi.Settings;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Prepares this process's environment before NCCL first reads it, once per
 * process (NCCL reads its variables once): sets the NCCL variables the probe
 * derived and the user did not set ({@link NcclAdvisor}), logs the traps it
 * found, and routes NCCL's INFO log for the INIT, NET and GRAPH subsystems to a
 * private file, from which {@link NcclNetwork} later reads what NCCL really
 * chose. A user who set {@code NCCL_DEBUG} keeps their log where they sent it;
 * jcoll then reads {@code NCCL_DEBUG_FILE} if they named one.
 * {@code JCOLL_NCCL_AUTOCONFIG=0} turns the derived settings off.
 */
final class NcclEnvironment {

    private static final System.Logger LOG = System.getLogger(NcclEnvironment.class.getName());

    /**
     * What was prepared.
     *
     * @param machine   the probe of this machine
     * @param advice    the derived settings and warnings
     * @param applied   the variables jcoll set, as {@code NAME=value}
     * @param log       NCCL's log file, or null when it cannot be read
     * @param logNote   where the log goes, or why it cannot be read
     */
    record Prepared(Machine machine, NcclAdvice advice, List<String> applied, Path log, String logNote) {
    }

    private static Prepared prepared;

    private NcclEnvironment() {
    }

    static synchronized Prepared prepare(Settings settings) {
        if (prepared == null) {
            prepared = doPrepare(settings);
        }
        return prepared;
    }

    private static Prepared doPrepare(Settings settings) {
        Machine machine = Machine.probe(settings);
        NcclAdvice advice = NcclAdvisor.advise(machine, settings);
        List<String> applied = new ArrayList<>();
        if (settings.getInt("JCOLL_NCCL_AUTOCONFIG", 1) == 1) {
            for (NcclSetting s : advice.applied()) {
                if (ProcessEnvironment.setIfAbsent(s.name(), s.value())) {
                    applied.add(s.name() + "=" + s.value());
                    LOG.log(System.Logger.Level.INFO, "jcoll set " + s.name() + "=" + s.value() + ": " + s.reason());
                }
            }
        }
        for (Warning w : advice.warnings()) {
            LOG.log(System.Logger.Level.WARNING, w.toString());
        }
        Path log;
        String note;
        if (ProcessEnvironment.get("NCCL_DEBUG").isPresent()) {
            String file = ProcessEnvironment.get("NCCL_DEBUG_FILE").orElse(null);
            log = file == null ? null : Path.of(expand(file));
            note = file == null ? "NCCL_DEBUG is set by you and its log goes to standard output, so jcoll cannot read "
                    + "what NCCL chose; set NCCL_DEBUG_FILE too, or unset NCCL_DEBUG"
                    : "NCCL's log as you routed it: " + log;
        } else {
            try {
                log = Files.createTempFile("jcoll-nccl-", ".log"); // owner-only permissions
                log.toFile().deleteOnExit();
                ProcessEnvironment.setIfAbsent("NCCL_DEBUG_FILE", log.toString());
                ProcessEnvironment.setIfAbsent("NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH");
                ProcessEnvironment.setIfAbsent("NCCL_DEBUG", "INFO");
                note = "NCCL's INIT, NET and GRAPH log, routed by jcoll to " + log;
            } catch (IOException | RuntimeException e) {
                log = null;
                note = "could not route NCCL's log: " + e.getMessage();
            }
        }
        return new Prepared(machine, advice, List.copyOf(applied), log, note);
    }

    /** NCCL_DEBUG_FILE's {@code %h} (host name) and {@code %p} (process id). */
    private static String expand(String file) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
            int dot = host.indexOf('.');
            host = dot > 0 ? host.substring(0, dot) : host;
        } catch (IOException e) {
            host = "localhost";
        }
        return file.replace("%h", host).replace("%p", Long.toString(ProcessHandle.current().pid()));
    }
}
