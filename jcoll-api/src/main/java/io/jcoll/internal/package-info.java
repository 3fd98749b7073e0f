/**
 * The implementation behind the public API, shared by every transport:
 * bootstrap, transport agreement, argument validation, and call ordering.
 * Not for use outside jcoll.
 */
package io.jcoll.internal;
