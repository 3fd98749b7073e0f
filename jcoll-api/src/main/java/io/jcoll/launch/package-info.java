/**
 * {@code jcoll launch}: starting and supervising local JVM ranks with the
 * bootstrap variables and a fresh job token.
 */
package io.jcoll.launch;
