/**
 * Collective algorithms over host memory, one per file, each written against
 * the {@link io.jcoll.tcp.p2p.PointToPoint} interface. Bandwidth: ring
 * reduce-scatter and all-gather (and all-reduce built from them), pairwise
 * all-to-all, chain broadcast. Latency, for small messages: recursive-doubling
 * all-reduce, recursive-halving reduce-scatter, Bruck all-gather, linear
 * all-to-all, binomial broadcast, dissemination barrier.
 * {@link io.jcoll.tcp.algorithm.Pipeline} is the single segmented data-moving
 * loop the bandwidth algorithms share (a ring's steps run through it as one
 * chain, each segment going on as soon as it is ready); {@link io.jcoll.tcp.algorithm.Collectives}
 * picks an algorithm for a call, or for one part of it. Where ranks share hosts
 * ({@link io.jcoll.tcp.algorithm.HostLayout}), rings and chains visit them in host order
 * ({@link io.jcoll.tcp.algorithm.GroupView}), and a large AllReduce over several hosts of several
 * ranks each goes in two levels ({@link io.jcoll.tcp.algorithm.HierarchicalAllReduce}).
 */
package io.jcoll.tcp.algorithm;
