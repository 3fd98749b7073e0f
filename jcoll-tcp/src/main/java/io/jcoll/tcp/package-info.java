/**
 * The pure-Java TCP transport: a full mesh of authenticated socket
 * connections ({@code Mesh}), a non-blocking progress engine that implements
 * {@link io.jcoll.tcp.p2p.PointToPoint} ({@code TcpLink}), and the provider
 * {@link io.jcoll.tcp.TcpTransportProvider} that ServiceLoader finds.
 */
package io.jcoll.tcp;
