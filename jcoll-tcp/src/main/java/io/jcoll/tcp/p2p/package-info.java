/**
 * The point-to-point layer under every collective algorithm: the
 * {@link io.jcoll.tcp.p2p.PointToPoint} interface, the {@link io.jcoll.tcp.p2p.Frame}
 * header, and the {@link io.jcoll.spi.Signature} each message carries so
 * that mismatched collectives are caught on arrival.
 */
package io.jcoll.tcp.p2p;
