/**
 * Reduction kernels shared by every host-memory transport: element-wise
 * combine and AVG's final division for each data type, and the 16-bit
 * floating-point conversions they rely on.
 */
package io.jcoll.kernels;
