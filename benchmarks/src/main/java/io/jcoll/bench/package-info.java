/**
 * The measuring tools: {@code jcoll perf} (nccl-tests' table for one
 * collective over a range of sizes, optionally as CSV), {@code jcoll demo}
 * (every collective, verified, on four local ranks), the JMH suite
 * ({@link io.jcoll.bench.CollectiveBenchmark} for the collectives, {@link io.jcoll.bench.ReductionBenchmark}
 * for the reduction kernel, run from {@code benchmarks.jar}),
 * the side-by-side table and charts of {@code benchmarks/compare}
 * ({@link io.jcoll.bench.Comparison}, {@link io.jcoll.bench.Chart}), and the
 * failure and memory drills ({@link io.jcoll.bench.FailureDrill},
 * {@link io.jcoll.bench.MemoryFootprint}).
 */
package io.jcoll.bench;
