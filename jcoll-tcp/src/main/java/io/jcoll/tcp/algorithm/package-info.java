/**
 * Collective algorithms over host memory, one per file, each written against
 * the {@link io.jcoll.tcp.p2p.PointToPoint} interface: ring reduce-scatter and
 * all-gather (and all-reduce built from them), recursive-doubling all-reduce,
 * pairwise all-to-all, chain and binomial broadcast, dissemination barrier.
 * {@link io.jcoll.tcp.algorithm.Pipeline} is the single segmented, double-buffered
 * data-moving loop they share; {@link io.jcoll.tcp.algorithm.Collectives} picks
 * an algorithm for a call.
 */
package io.jcoll.tcp.algorithm;
