/**
 * The measuring tools: {@code jcoll perf} (nccl-tests' table for one
 * collective over a range of sizes) and {@code jcoll demo} (every collective,
 * verified, on four local ranks).
 */
package io.jcoll.bench;
