package io.jcoll.spi;

/**
 * A transport implementation, found with {@link java.util.ServiceLoader}. Each
 * jar that provides one lists it in
 * {@code META-INF/services/io.jcoll.spi.TransportProvider}.
 */
public interface TransportProvider {

    /** Short name used in {@code JCOLL_TRANSPORT} and messages: {@code tcp}, {@code nccl}. */
    String name();

    /**
     * Preference under {@code JCOLL_TRANSPORT=auto}: lower is tried first. The
     * first transport usable on every rank wins.
     */
    int preference();

    /** Probes this rank's environment: can this transport run here, and why (not)? */
    Availability probe(Settings settings);

    /**
     * Opens this rank's side. Every rank calls it at the same time. A transport that finds, while opening, that
     * the ranks cannot use it together (the shared-memory transport among ranks that cannot share a file) throws
     * {@link io.jcoll.exceptions.TransportUnavailableException} on every rank alike, having released everything;
     * under {@code auto} the ranks then open the next transport, and the reason is kept in
     * {@link io.jcoll.TransportInfo#rejected()}. Any other failure fails the communicator.
     */
    Transport open(TransportContext context);
}
