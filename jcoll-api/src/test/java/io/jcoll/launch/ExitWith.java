package io.jcoll.launch;

/** A launched test rank: prints its rank, and exits with the code given for its rank (the rest exit 0 or sleep). */
public final class ExitWith {

    private ExitWith() {
    }

    /**
     * args: FAILING_RANK CODE [sleep|stop]: the failing rank exits CODE (after a second with "stop"); the others
     * exit 0, sleep long with "sleep", or stop themselves with SIGSTOP with "stop".
     */
    public static void main(String[] args) throws InterruptedException {
        int rank = Integer.parseInt(System.getenv("RANK"));
        System.out.println("hello from rank " + rank + " of " + System.getenv("WORLD_SIZE")
                + ", token " + (System.getenv("JCOLL_TOKEN").length() >= 32 ? "set" : "missing"));
        boolean stop = args.length > 2 && args[2].equals("stop");
        if (rank == Integer.parseInt(args[0])) {
            if (stop) {
                Thread.sleep(1000); // the others are stopped by then
            }
            System.exit(Integer.parseInt(args[1]));
        }
        if (stop) {
            try {
                new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid())).start().waitFor();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }
        if (args.length > 2) {
            Thread.sleep(600_000);
        }
    }
}
