/**
 * The one small exception hierarchy of jcoll. Everything is unchecked and
 * extends {@link io.jcoll.exceptions.JcollException}, which carries the
 * operation, the rank and the peer involved.
 */
package io.jcoll.exceptions;
