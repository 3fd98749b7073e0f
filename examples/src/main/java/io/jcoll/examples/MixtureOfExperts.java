package io.jcoll.examples;

import io.jcoll.Communicator;
import io.jcoll.HostBuffer;
import io.jcoll.Jcoll;


/**
 * Mixture-of-experts token routing with All-to-All, as expert-parallel training
 * does it: each rank owns some experts; a gate sends each of its tokens to one
 * expert, wherever that expert lives; one All-to-All dispatches the tokens
 * (a block per destination, sized for the most any rank can send), the experts
 * run, and a second All-to-All combines the results back in the tokens' order.
 * A first small All-to-All tells each rank how many tokens each block holds.
 * Every rank checks its outputs against the same experts run locally.
 * <pre>
 * ./jcoll launch -n 4 -- io.jcoll.examples.MixtureOfExperts
 * </pre>
 */
public final class MixtureOfExperts {

    static final int MODEL = 32;            // features per token
    static final int TOKENS = 512;          // tokens per rank
    static final int EXPERTS_PER_RANK = 2;

    private MixtureOfExperts() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Jcoll.fromEnvironment()) {
            int n = comm.size();
            int experts = n * EXPERTS_PER_RANK;
            float[][] gate = Synthetic.matrix(MODEL, experts, 1);               // shared by every rank
            float[][] tokens = Synthetic.matrix(TOKENS, MODEL, 100 + comm.rank());

            // route: each token to its best expert, grouped by the rank that owns it
            int[] expertOf = new int[TOKENS];
            int[] perRank = new int[n];
            for (int t = 0; t < TOKENS; t++) {
                expertOf[t] = argmax(times(tokens[t], gate));
                perRank[expertOf[t] / EXPERTS_PER_RANK]++;
            }
            // a token travels as its features plus its expert's number; a block holds up to TOKENS of them
            int width = MODEL + 1;
            float[] dispatch = new float[n * TOKENS * width];
            int[] slot = new int[n];
            int[] placeOf = new int[TOKENS];                            // where token t went, to find its answer
            for (int t = 0; t < TOKENS; t++) {
                int dst = expertOf[t] / EXPERTS_PER_RANK;
                int at = (dst * TOKENS + slot[dst]++) * width;
                System.arraycopy(tokens[t], 0, dispatch, at, MODEL);
                dispatch[at + MODEL] = expertOf[t];
                placeOf[t] = at;
            }
            int[] incoming = new int[n];
            comm.allToAll(HostBuffer.of(perRank), HostBuffer.of(incoming), 1);           // how many in each block
            float[] received = new float[dispatch.length];
            comm.allToAll(HostBuffer.of(dispatch), HostBuffer.of(received), (long) TOKENS * width);

            // this rank's experts process what arrived, in place, block by block
            for (int src = 0; src < n; src++) {
                for (int i = 0; i < incoming[src]; i++) {
                    int at = (src * TOKENS + i) * width;
                    float[] x = java.util.Arrays.copyOfRange(received, at, at + MODEL);
                    float[] y = expert((int) received[at + MODEL], x);
                    System.arraycopy(y, 0, received, at, MODEL);
                }
            }
            float[] combined = new float[dispatch.length];
            comm.allToAll(HostBuffer.of(received), HostBuffer.of(combined), (long) TOKENS * width); // back home

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
                    + n + " ranks (sent per rank " + java.util.Arrays.toString(perRank) + "), every output equal to "
                    + "the local reference, over " + comm.transport().name());
        }
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

    static int argmax(float[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[best]) {
                best = i;
            }
        }
        return best;
    }
}
