package io.jcoll.gpu;

import org.bytedeco.javacpp.Pointer;

/** JavaCPP pointers at raw addresses: the only way an address crosses into C, after its bounds were checked. */
final class Pointers {

    private Pointers() {
    }

    static Pointer at(long address) {
        return new Pointer() {
            {
                this.address = address;
            }
        };
    }
}
