package io.jcoll.launch;

/** A launched test rank: prints its rank, and exits with the code given for its rank (the rest exit 0 or sleep). */
public final class ExitWith {

    private ExitWith() {
    }

    /** args: FAILING_RANK CODE [sleep]: the failing rank exits CODE; the others exit 0, or sleep long with "sleep". */
    public static void main(String[] args) throws InterruptedException {
        int rank = Integer.parseInt(System.getenv("RANK"));
        System.out.println("hello from rank " + rank + " of " + System.getenv("WORLD_SIZE")
                + ", token " + (System.getenv("JCOLL_TOKEN").length() >= 32 ? "set" : "missing"));
        if (rank == Integer.parseInt(args[0])) {
            System.exit(Integer.parseInt(args[1]));
        }
        if (args.length > 2) {
            Thread.sleep(600_000);
        }
    }
}
