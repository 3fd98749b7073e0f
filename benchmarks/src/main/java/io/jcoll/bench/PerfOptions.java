package io.jcoll.bench;

import io.jcoll.DataType;
import io.jcoll.ReduceOp;
import io.jcoll.spi.Settings;

import java.util.ArrayList;
import java.util.List;

/**
 * The perf command's options, named as in nccl-tests:
 * {@code OP [-b MIN_BYTES] [-e MAX_BYTES] [-f FACTOR] [-n RANKS] [-w WARMUP]
 * [-i ITERS] [-d TYPE] [-o REDOP] [-r ROOT] [-c 0|1] [--transport T] [--csv FILE]}.
 */
record PerfOptions(Collective op, long minBytes, long maxBytes, double factor, int ranks, int warmup, int iters,
                   DataType type, ReduceOp redop, int root, boolean check, String transport, String csv,
                   String memory, String async, double skew, int groupSize, int jitWarmup,
                   boolean inPlaceFirst) {

    static final String USAGE = "usage: jcoll perf OP [-b MIN_BYTES] [-e MAX_BYTES] [-f FACTOR] [-n RANKS] "
            + "[-w WARMUP] [-i ITERS] [-d TYPE] [-o REDOP] [-r ROOT] [-c 0|1] [--transport auto|tcp|nccl] [--csv FILE]\n"
            + "  [--memory auto|host|shared|device] [--async auto|0|1] [--skew S] [--group-size G] [--jit-warmup CALLS]\n"
            + "  [--in-place-first 0|1]\n"
            + "  OP: allreduce, allgather, reducescatter, alltoall, broadcast, reduce, gather, scatter, alltoallv,\n"
            + "      sendrecv; sizes take K, M, G suffixes\n"
            + "  --skew S: alltoallv's blocks range from (1 - S) to (1 + S) times the even size, 0 <= S < 1 (default 0)\n"
            + "  --group-size G: split the ranks into groups of G (ranks r / G together) and measure on every group at "
            + "once; rank 0 reports its group\n"
            + "  --jit-warmup CALLS: untimed small calls before the sweep, for the JIT (default "
            + Perf.JIT_WARMUP_CALLS + "); where the ranks\n"
            + "      spin on every core the compiler shares them, and small calls reach their steady time only after a\n"
            + "      second or so of calls (2 ranks on 2 cores: a few million)\n"
            + "  --in-place-first 0|1: time each size in place before out of place (default 0), to tell a form's cost\n"
            + "      from its place in the row";

    static PerfOptions parse(List<String> argv) {
        if (argv.isEmpty() || argv.get(0).startsWith("-")) {
            throw new IllegalArgumentException("name the operation first");
        }
        Collective op = Collective.parse(argv.get(0));
        long min = 8;
        long max = 64L << 20;
        double factor = 2;
        int ranks = 0;
        int warmup = 5;
        int iters = 20;
        DataType type = DataType.FLOAT32;
        ReduceOp redop = ReduceOp.SUM;
        int root = 0;
        boolean check = true;
        String transport = null;
        String csv = null;
        String memory = "auto";
        String async = "auto";
        double skew = 0;
        int groupSize = 0;
        int jitWarmup = Perf.JIT_WARMUP_CALLS;
        boolean inPlaceFirst = false;
        for (int i = 1; i < argv.size(); i++) {
            String flag = argv.get(i);
            if (i + 1 >= argv.size()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            String v = argv.get(++i);
            switch (flag) {
                case "-b", "--minbytes" -> min = Settings.parseBytes(v);
                case "-e", "--maxbytes" -> max = Settings.parseBytes(v);
                case "-f", "--stepfactor" -> factor = Double.parseDouble(v);
                case "-n", "--ranks" -> ranks = Integer.parseInt(v);
                case "-w", "--warmup_iters" -> warmup = Integer.parseInt(v);
                case "-i", "--iters" -> iters = Integer.parseInt(v);
                case "-d", "--datatype" -> type = DataType.parse(v);
                case "-o", "--op" -> redop = ReduceOp.parse(v);
                case "-r", "--root" -> root = Integer.parseInt(v);
                case "-c", "--check" -> check = !v.equals("0");
                case "--transport" -> transport = v;
                case "--csv" -> csv = v;
                case "--memory" -> memory = v;
                case "--async" -> async = v;
                case "--skew" -> skew = Double.parseDouble(v);
                case "--group-size" -> groupSize = Integer.parseInt(v);
                case "--jit-warmup" -> jitWarmup = Integer.parseInt(v);
                case "--in-place-first" -> inPlaceFirst = !v.equals("0");
                default -> throw new IllegalArgumentException("unknown option " + flag);
            }
        }
        if (min < 0 || max < min || factor <= 1 || iters < 1 || warmup < 0 || ranks < 0 || jitWarmup < 0) {
            throw new IllegalArgumentException("need 0 <= MIN_BYTES <= MAX_BYTES, FACTOR > 1, ITERS >= 1, WARMUP >= 0, "
                    + "--jit-warmup >= 0");
        }
        if (!memory.matches("auto|host|shared|device") || !async.matches("auto|0|1")) {
            throw new IllegalArgumentException("--memory is auto, host, shared or device; --async is auto, 0 or 1");
        }
        if (!(skew >= 0 && skew < 1) || groupSize < 0) {
            throw new IllegalArgumentException("--skew is 0 or more and below 1; --group-size is a positive count");
        }
        return new PerfOptions(op, min, max, factor, ranks, warmup, iters, type, redop, root, check, transport, csv,
                memory, async, skew, groupSize, jitWarmup, inPlaceFirst);
    }

    /** The arguments a launched rank gets: these options without -n. */
    static List<String> withoutRanks(List<String> argv) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < argv.size(); i++) {
            if (argv.get(i).equals("-n") || argv.get(i).equals("--ranks")) {
                i++;
            } else {
                out.add(argv.get(i));
            }
        }
        return out;
    }

    /** The sizes measured: MIN, MIN*FACTOR, ... up to MAX, each a multiple of what the operation needs. */
    List<Long> sizes(int n) {
        List<Long> sizes = new ArrayList<>();
        long unit = op.unitBytes(type, n);
        for (double s = Math.max(min(), 0); s <= maxBytes; s = Math.max(s * factor, s + 1)) {
            long bytes = ((long) s / unit) * unit;
            if (sizes.isEmpty() || sizes.get(sizes.size() - 1) != bytes) {
                sizes.add(bytes);
            }
            if (s == 0) {
                s = 1; // from 0, continue at 1 byte
            }
        }
        return sizes;
    }

    /** Device memory when asked, or under auto when the transport is NCCL (as nccl-tests measures). */
    boolean deviceMemory(String transportName) {
        return memory.equals("device") || memory.equals("auto") && transportName.equals("nccl");
    }

    /** Host memory from io.jcoll.SharedMemory, which the shm transport's peers read through their own mappings. */
    boolean sharedMemory() {
        return memory.equals("shared");
    }

    /** Launch every iteration before waiting: under auto, where the transport queues work (NCCL). */
    boolean asyncLoop(String transportName) {
        return async.equals("1") || async.equals("auto") && transportName.equals("nccl");
    }

    private long min() {
        return minBytes;
    }
}
