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

    /**
     * A pointer argument re-aimed for each call instead of allocated, for the launch path: calls on one
     * communicator are serialised, so one per argument position is enough, and a launch allocates nothing.
     */
    static final class Reusable extends Pointer {
        Pointer at(long target) {
            this.address = target;
            return this;
        }
    }
}
