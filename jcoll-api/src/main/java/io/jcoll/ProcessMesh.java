package io.jcoll;

import java.util.Arrays;
import java.util.List;

/**
 * Ranks arranged as a grid, as torch's {@code DeviceMesh}: see {@link Communicator#mesh(int...)}. Rank
 * {@code r}'s coordinates are the digits of {@code r} in the mixed radix of the shape, the last dimension the
 * fastest: in a {@code 2 x 4} mesh rank 6 is at {@code (1, 2)}.
 * <pre>{@code
 * try (ProcessMesh mesh = comm.mesh(2, 4)) {               // data parallel x tensor parallel
 *     mesh.along(1).allReduce(HostBuffer.of(partial), ReduceOp.SUM);    // inside this rank's tensor group
 *     mesh.along(0).allReduce(HostBuffer.of(gradients), ReduceOp.AVG);  // across the data-parallel replicas
 * }
 * }</pre>
 */
public final class ProcessMesh implements AutoCloseable {

    private final int[] shape;
    private final int[] coordinates;
    private final List<Communicator> along;

    /**
     * A mesh of communicators already formed ({@link Communicator#mesh(int...)} forms them and calls this).
     *
     * @param shape       the size of each dimension
     * @param coordinates this rank's position
     * @param along       the communicator along each dimension
     */
    public ProcessMesh(int[] shape, int[] coordinates, List<Communicator> along) {
        this.shape = shape.clone();
        this.coordinates = coordinates.clone();
        this.along = List.copyOf(along);
    }

    /** {@return the size of each dimension} */
    public int[] shape() {
        return shape.clone();
    }

    /** {@return this rank's position in the grid} */
    public int[] coordinates() {
        return coordinates.clone();
    }

    /**
     * The ranks that share every coordinate with this rank but {@code dimension}'s, ranked by that coordinate.
     *
     * @param dimension 0 to {@code shape().length - 1}
     * @return their communicator
     */
    public Communicator along(int dimension) {
        if (dimension < 0 || dimension >= shape.length) {
            throw new IllegalArgumentException("dimension " + dimension + " is out of range: the mesh "
                    + Arrays.toString(shape) + " has " + shape.length);
        }
        return along.get(dimension);
    }

    /** Closes every dimension's communicator (not the one the mesh was made from). */
    @Override
    public void close() {
        for (Communicator c : along) {
            c.close();
        }
    }

    @Override
    public String toString() {
        return "ProcessMesh" + Arrays.toString(shape) + " at " + Arrays.toString(coordinates);
    }
}
