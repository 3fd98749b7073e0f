package io.jcoll.internal;

import io.jcoll.exceptions.InvalidArgumentException;
import io.jcoll.exceptions.JcollException;

/** Row-major coordinates of a grid of ranks, and the split colors that cut it into lines along one dimension. */
final class MeshLayout {

    private MeshLayout() {
    }

    /** {@code rank}'s coordinates in {@code shape}, the last dimension the fastest; checks the shape first. */
    static int[] coordinates(int rank, int size, int[] shape) {
        if (shape == null || shape.length == 0) {
            throw invalid(rank, "a mesh needs at least one dimension");
        }
        long product = 1;
        for (int d : shape) {
            if (d < 1) {
                throw invalid(rank, "mesh shape " + java.util.Arrays.toString(shape) + " has a dimension of " + d
                        + "; every dimension needs at least one rank");
            }
            product *= d;
            if (product > size) {
                break;
            }
        }
        if (product != size) {
            throw invalid(rank, "mesh shape " + java.util.Arrays.toString(shape) + " holds " + (product > size
                    ? "more than " + size : Long.toString(product)) + " ranks but the communicator has " + size);
        }
        int[] c = new int[shape.length];
        int rest = rank;
        for (int d = shape.length - 1; d >= 0; d--) {
            c[d] = rest % shape[d];
            rest /= shape[d];
        }
        return c;
    }

    /** The color of the line through {@code coordinates} along {@code dimension}: the other coordinates, linearised. */
    static int colorAlong(int[] coordinates, int[] shape, int dimension) {
        int color = 0;
        for (int d = 0; d < shape.length; d++) {
            if (d != dimension) {
                color = color * shape[d] + coordinates[d];
            }
        }
        return color;
    }

    private static InvalidArgumentException invalid(int rank, String message) {
        return new InvalidArgumentException("mesh", rank, JcollException.NONE, message);
    }
}
