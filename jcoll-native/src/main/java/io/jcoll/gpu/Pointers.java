package io.jcoll.gpu;

import org.bytedeco.javacpp.Pointer;

/** JavaCPP pointers at raw addresses: the only way an address crosses into C, after its bounds were checked. */
final class Pointers {

    private Pointers() {
    }

    static Pointer at(long target) {
        // not named "address": inside the subclass that name is Pointer's own field, which would shadow it
        return new Pointer() {
            {
                this.address = target;
            }
        };
    }
}
