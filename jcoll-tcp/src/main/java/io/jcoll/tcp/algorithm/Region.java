package io.jcoll.tcp.algorithm;

import io.jcoll.HostBuffer;

/** A position inside a host buffer, in elements. */
public record Region(HostBuffer buffer, long element) {

    public long byteOffset(long elementsFurther) {
        return (element + elementsFurther) * buffer.type().size();
    }

    public Region plus(long elements) {
        return new Region(buffer, element + elements);
    }
}
