package io.jcoll.launch;

import io.jcoll.testing.Commands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launchers of a job of several nodes, each a real {@code jcoll launch --nnodes N --node-rank R} process on
 * loopback with a host name of its own ({@code JCOLL_HOST_ID=host-R}): they meet before any rank starts, refuse
 * nodes that disagree, and end every node's ranks on the first failure anywhere, naming it.
 */
class NodeRendezvousTest {

    private final ExecutorService nodes = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        nodes.shutdownNow();
    }

    /** One node's launcher, run to its end: {@code options} are its own ({@code --node-rank}, ...). */
    private Future<Commands.Result> node(int port, Map<String, String> env, String... options) {
        List<String> cmd = new ArrayList<>(List.of(Commands.java(), "-Xmx64m", "-cp",
                System.getProperty("java.class.path"), Launcher.class.getName(), "--master-addr", "127.0.0.1",
                "--master-port", Integer.toString(port)));
        cmd.addAll(List.of(options));
        Map<String, String> vars = new HashMap<>(Map.of("JCOLL_JAVA_OPTS", "-Xmx32m -XX:TieredStopAtLevel=1",
                "JCOLL_TIMEOUT", "20s", "JCOLL_LAUNCH_GRACE", "1"));
        vars.putAll(env);
        return nodes.submit(() -> Commands.run(cmd, vars, 90));
    }

    private Future<Commands.Result> node(int port, int nnodes, int nodeRank, int nproc, String... main) {
        List<String> options = new ArrayList<>(List.of("--nnodes", Integer.toString(nnodes), "--node-rank",
                Integer.toString(nodeRank), "--nproc-per-node", Integer.toString(nproc), "--"));
        options.addAll(List.of(main));
        return node(port, Map.of("JCOLL_HOST_ID", "host-" + nodeRank), options.toArray(String[]::new));
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Commands.Result done(Future<Commands.Result> node) throws Exception {
        return node.get(100, TimeUnit.SECONDS);
    }

    @Test
    void everyNodeStartsItsShareOfTheJobsRanks() throws Exception {
        int port = freePort();
        List<Future<Commands.Result>> all = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            all.add(node(port, 3, k, 2, ExitWith.class.getName(), "-1", "0"));
        }
        for (int k = 0; k < 3; k++) {
            Commands.Result r = done(all.get(k));
            assertEquals(0, r.exit(), r.output());
            for (int rank = 2 * k; rank < 2 * k + 2; rank++) { // node k of 3 with 2 processes each
                assertTrue(r.output().contains("[" + rank + "] hello from rank " + rank + " of 6"), r.output());
            }
        }
    }

    @Test
    void aFailureOnOneNodeEndsEveryNodesRanksAndEveryLauncherNamesIt() throws Exception {
        int port = freePort();
        long start = System.nanoTime();
        // rank 3 (node 1's second) exits 7; every other rank would sleep for ten minutes
        Future<Commands.Result> n0 = node(port, 2, 0, 2, ExitWith.class.getName(), "3", "7", "sleep");
        Future<Commands.Result> n1 = node(port, 2, 1, 2, ExitWith.class.getName(), "3", "7", "sleep");
        Commands.Result r0 = done(n0);
        Commands.Result r1 = done(n1);
        double seconds = (System.nanoTime() - start) / 1e9;
        String named = "rank 3 on node 1 (host-1) failed first (exit code 7)";
        assertEquals(7, r0.exit(), r0.output());
        assertEquals(7, r1.exit(), r1.output());
        assertTrue(r0.output().contains("stopping rank(s) [0, 1], still running 1 s after " + named), r0.output());
        assertTrue(r0.output().contains("jcoll launch: " + named), r0.output());
        assertTrue(r1.output().contains("stopping rank(s) [2]") && r1.output().contains(named), r1.output());
        assertTrue(seconds < 30, "every node's ranks were stopped soon after the failure: " + seconds + " s");
    }

    @Test
    void nodesStartedWithOtherOptionsFailEveryLauncherBeforeAnyRankStarts() throws Exception {
        int port = freePort();
        Future<Commands.Result> n0 = node(port, 2, 0, 2, ExitWith.class.getName(), "-1", "0");
        Future<Commands.Result> n1 = node(port, 2, 1, 3, ExitWith.class.getName(), "-1", "0");
        for (Commands.Result r : List.of(done(n0), done(n1))) {
            assertEquals(1, r.exit(), r.output());
            assertTrue(r.output().matches("(?s).*node [01] \\(host-[01](, pid \\d+)?\\) was started with --nnodes 2 "
                    + "--nproc-per-node [23], node [01] \\(host-[01]\\) with --nnodes 2 --nproc-per-node [23]: every "
                    + "node takes the same values.*"), r.output());
            assertFalse(r.output().contains("hello from rank"), r.output());
        }
    }

    @Test
    void twoLaunchersClaimingOneNodeRankFailEveryLauncher() throws Exception {
        int port = freePort();
        Future<Commands.Result> n0 = node(port, 3, 0, 1, ExitWith.class.getName(), "-1", "0");
        Future<Commands.Result> n1 = node(port, 3, 1, 1, ExitWith.class.getName(), "-1", "0");
        Thread.sleep(3000); // the first claimant of node 1 is in by then
        Future<Commands.Result> again = node(port, Map.of("JCOLL_HOST_ID", "host-x"), "--nnodes", "3",
                "--node-rank", "1", "--nproc-per-node", "1", "--", ExitWith.class.getName(), "-1", "0");
        for (Commands.Result r : List.of(done(n0), done(n1), done(again))) {
            assertEquals(1, r.exit(), r.output());
            assertTrue(r.output().matches("(?s).*two launchers claim --node-rank 1: node 1 \\(host-1, pid \\d+\\) and "
                    + "node 1 \\(host-x, pid \\d+\\); give each node its own --node-rank.*"), r.output());
            assertFalse(r.output().contains("hello from rank"), r.output());
        }
    }

    @Test
    void aNodeThatNeverArrivesFailsTheOthersWithinTheTimeout() throws Exception {
        int port = freePort();
        long start = System.nanoTime();
        Commands.Result r = done(node(port, Map.of("JCOLL_TIMEOUT", "3s", "JCOLL_HOST_ID", "host-0"), "--nnodes", "3",
                "--node-rank", "0", "--nproc-per-node", "1", ExitWith.class.getName(), "-1", "0"));
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(1, r.exit(), r.output());
        assertTrue(r.output().contains("node(s) [1, 2] of 3 never arrived within 3 s (JCOLL_TIMEOUT); node 0 "
                + "(host-0, pid "), r.output());
        assertFalse(r.output().contains("hello from rank"), r.output());
        assertTrue(seconds < 3 + 8, "failed within the timeout (a JVM's start aside): " + seconds + " s");
    }

    @Test
    void aMasterAddressThatDoesNotResolveOrAPortInUseIsNamed() throws Exception {
        Commands.Result unresolved = done(node(freePort(), Map.of(), "--master-addr", "no-such-host.invalid",
                "--nnodes", "2", "--node-rank", "1", "-n", "1", ExitWith.class.getName(), "-1", "0"));
        assertEquals(1, unresolved.exit(), unresolved.output());
        assertTrue(unresolved.output().contains("--master-addr no-such-host.invalid does not resolve here"),
                unresolved.output());

        try (ServerSocket taken = new ServerSocket(0)) {
            int port = taken.getLocalPort();
            Future<Commands.Result> n0 = node(port, 2, 0, 1, ExitWith.class.getName(), "-1", "0");
            Future<Commands.Result> n1 = node(port, Map.of("JCOLL_TIMEOUT", "3s"), "--nnodes", "2", "--node-rank",
                    "1", "-n", "1", ExitWith.class.getName(), "-1", "0");
            Commands.Result r0 = done(n0);
            Commands.Result r1 = done(n1);
            assertEquals(1, r0.exit(), r0.output());
            assertTrue(r0.output().contains("node 0 (host-0): --master-port " + port + " is already in use on this "
                    + "host"), r0.output());
            assertEquals(1, r1.exit(), r1.output());
            assertTrue(r1.output().contains("node 0's jcoll launch did not answer at 127.0.0.1:" + port + " within 3 s "
                    + "(JCOLL_TIMEOUT)"), r1.output());
        }
    }
}
