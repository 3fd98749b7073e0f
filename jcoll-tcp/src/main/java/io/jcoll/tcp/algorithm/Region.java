package io.jcoll.tcp.algorithm;

import io.jcoll.spi.StagedAccess;

/** A position inside a buffer the algorithms reach a segment at a time, in elements. */
public record Region(StagedAccess buffer, long element) {

    public long byteOffset(long elementsFurther) {
        return (element + elementsFurther) * buffer.type().size();
    }

    public Region plus(long elements) {
        return new Region(buffer, element + elements);
    }
}
