/**
 * The transport service-provider interface. A transport is a
 * {@link io.jcoll.spi.TransportProvider} found by {@link java.util.ServiceLoader};
 * it probes whether it can run ({@link io.jcoll.spi.Availability}), and opens a
 * {@link io.jcoll.spi.Transport} that executes validated {@link io.jcoll.spi.Call}s.
 * Validation, ordering, asynchrony and error wrapping live in the API, once. A transport may also offer a
 * {@link io.jcoll.spi.PairExchange}, through which the job-wide doctor measures its own path between hosts.
 */
package io.jcoll.spi;
