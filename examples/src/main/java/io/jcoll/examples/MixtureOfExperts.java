package io.jcoll.examples;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;


/**
 * Mixture-of-experts token routing with uneven All-to-All, as expert-parallel training does it: each rank owns
 * some experts; a gate sends each of its tokens to one expert, wherever that expert lives. The routing is
 * skewed, as real gates are: the first rank's experts are favoured, and the last rank's experts are switched
 * off, so that rank receives no tokens at all. A small All-to-All first tells every rank how many tokens each
 * peer will send it; one {@code allToAllV} then moves exactly those tokens (no padding to the largest block),
 * the experts run, and a second {@code allToAllV} with the counts reversed brings the results home in the
 * tokens' order. Every rank checks its outputs against the same experts run locally.
 * <pre>
 * ./jcoll launch -n 4 -- io.jcoll.examples.MixtureOfExperts
 * </pre>
 */
public final class MixtureOfExperts {

    static final int MODEL = 32;            // features per token
    static final int TOKENS = 512;          // tokens per rank
    static final int EXPERTS_PER_RANK = 2;
    static final float FAVOURED = 0.6f;     // gate bias towards rank 0's experts

    private MixtureOfExperts() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            int n = comm.size();
            int experts = n * EXPERTS_PER_RANK;
            float[][] gate = Synthetic.matrix(MODEL, experts, 1);               // shared by every rank
            float[][] tokens = Synthetic.matrix(TOKENS, MODEL, 100 + comm.rank());

            // route: each token to its best expert among those switched on, grouped by the rank that owns it
            int[] expertOf = new int[TOKENS];
            long[] perRank = new long[n];
            for (int t = 0; t < TOKENS; t++) {
                expertOf[t] = route(times(tokens[t], gate), n);
                perRank[expertOf[t] / EXPERTS_PER_RANK]++;
            }
            // a token travels as its features plus its expert's number, packed by destination
            int width = MODEL + 1;
            long[] sendOffsets = startsOf(perRank);
            float[] dispatch = new float[TOKENS * width];
            int[] slot = new int[n];
            int[] placeOf = new int[TOKENS];                            // where token t went, to find its answer
            for (int t = 0; t < TOKENS; t++) {
                int dst = expertOf[t] / EXPERTS_PER_RANK;
                int at = (int) (sendOffsets[dst] + slot[dst]++) * width;
                System.arraycopy(tokens[t], 0, dispatch, at, MODEL);
                dispatch[at + MODEL] = expertOf[t];
                placeOf[t] = at;
            }
            long[] incoming = new long[n];
            comm.allToAll(HostBuffer.of(perRank), HostBuffer.of(incoming), 1);          // how many from each rank
            long arrived = java.util.Arrays.stream(incoming).sum();
            float[] received = new float[(int) arrived * width];
            comm.allToAllV(HostBuffer.of(dispatch), times(perRank, width), null,
                    HostBuffer.of(received), times(incoming, width), null);

            // this rank's experts process what arrived, in place
            for (int at = 0; at < received.length; at += width) {
                float[] x = java.util.Arrays.copyOfRange(received, at, at + MODEL);
                System.arraycopy(expert((int) received[at + MODEL], x), 0, received, at, MODEL);
            }
            float[] combined = new float[dispatch.length];
            comm.allToAllV(HostBuffer.of(received), times(incoming, width), null,        // back home: counts reversed
                    HostBuffer.of(combined), times(perRank, width), null);

            int wrong = 0;
            for (int t = 0; t < TOKENS; t++) {
                float[] want = expert(expertOf[t], tokens[t]);
                for (int j = 0; j < MODEL; j++) {
                    if (combined[placeOf[t] + j] != want[j]) {
                        wrong++;
                    }
                }
            }
            if (wrong > 0) {
                throw new AssertionError("rank " + comm.rank() + ": " + wrong + " outputs differ from the local reference");
            }
            System.out.println("rank " + comm.rank() + ": " + TOKENS + " tokens routed to " + experts + " experts on "
                    + n + " ranks (sent per rank " + java.util.Arrays.toString(perRank) + ", received " + arrived
                    + "), every output equal to the local reference, over " + comm.transport().name());
        }
    }

    /** The best expert for a token's gate scores: rank 0's experts favoured, the last rank's switched off. */
    static int route(float[] scores, int ranks) {
        int best = -1;
        for (int e = 0; e < scores.length; e++) {
            int owner = e / EXPERTS_PER_RANK;
            if (ranks > 1 && owner == ranks - 1) {
                continue;
            }
            float s = scores[e] + (owner == 0 ? FAVOURED : 0);
            if (best < 0 || s > scores[best] + (best / EXPERTS_PER_RANK == 0 ? FAVOURED : 0)) {
                best = e;
            }
        }
        return best;
    }

    /** Where each block starts when blocks of these sizes are packed one after another. */
    static long[] startsOf(long[] sizes) {
        long[] starts = new long[sizes.length];
        for (int i = 1; i < sizes.length; i++) {
            starts[i] = starts[i - 1] + sizes[i - 1];
        }
        return starts;
    }

    static long[] times(long[] counts, int factor) {
        long[] out = new long[counts.length];
        for (int i = 0; i < counts.length; i++) {
            out[i] = counts[i] * factor;
        }
        return out;
    }

    /** Expert e: y = tanh(W_e x), its weights derived from e so that any rank can build any expert. */
    static float[] expert(int e, float[] x) {
        float[][] w = Synthetic.matrix(MODEL, MODEL, 1000 + e);
        float[] y = new float[MODEL];
        for (int i = 0; i < MODEL; i++) {
            float z = 0;
            for (int j = 0; j < MODEL; j++) {
                z += w[i][j] * x[j];
            }
            y[i] = (float) Math.tanh(z);
        }
        return y;
    }

    static float[] times(float[] x, float[][] m) {
        float[] out = new float[m[0].length];
        for (int i = 0; i < x.length; i++) {
            for (int j = 0; j < out.length; j++) {
                out[j] += x[i] * m[i][j];
            }
        }
        return out;
    }
}
