/** Small runnable programs to copy from; each runs with {@code ./jcoll launch -n 4 -- CLASS}. */
package io.jcoll.examples;
