package io.jcoll.tcp.it;

import io.jcoll.Communicator;
import io.jcoll.Jcoll;
import io.jcoll.testing.Case;
import io.jcoll.testing.Ops;

import java.util.List;

/** A launched rank: runs the collective matrix through the public API and exits 0 only if every result is right. */
public final class VerifyMain {

    private VerifyMain() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            List<Case> cases = Case.matrix(new int[] {0, 1, 7, 1000}, true, comm.size());
            int i = 0;
            for (Case c : cases) {
                c.run(Ops.of(comm, i++ % 2 == 0));
            }
            System.out.println("rank " + comm.rank() + " verified " + cases.size() + " cases over "
                    + comm.transport().name() + "; local rank " + comm.localRank() + "; network: "
                    + comm.network().summary());
        }
    }
}
