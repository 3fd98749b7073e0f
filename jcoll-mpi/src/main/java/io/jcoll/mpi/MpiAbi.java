package io.jcoll.mpi;

import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.jcoll.DataType;
import io.jcoll.ReduceOp;

import java.util.EnumMap;
import java.util.Map;

/**
 * The handles of one MPI ABI, which {@code mpi.h} would otherwise provide.
 * Open MPI's handles are the addresses of its predefined objects
 * ({@code MPI_COMM_WORLD} is {@code &ompi_mpi_comm_world}), read from the
 * loaded library's symbols; MPICH's (and the ABI it shares with Intel MPI,
 * MVAPICH and Cray MPICH) are fixed integers from its {@code mpi.h}.
 *
 * @param name          {@code Open MPI} or {@code MPICH}
 * @param commWorld     {@code MPI_COMM_WORLD}
 * @param errorsReturn  {@code MPI_ERRORS_RETURN}
 * @param bytes         {@code MPI_BYTE}
 * @param inPlace       {@code MPI_IN_PLACE}
 * @param statusIgnore  {@code MPI_STATUS_IGNORE}
 * @param intHandles    whether handles are C {@code int}s (MPICH) rather than pointers (Open MPI)
 */
record MpiAbi(String name, long commWorld, long errorsReturn, long bytes, long inPlace, long statusIgnore,
              boolean intHandles, Map<DataType, Long> types, Map<ReduceOp, Long> ops) {

    static MpiAbi of(NativeLibrary lib) {
        try {
            lib.getGlobalVariableAddress("ompi_mpi_comm_world");
            return openMpi(lib);
        } catch (UnsatisfiedLinkError e) {
            return mpich();
        }
    }

    private static MpiAbi openMpi(NativeLibrary lib) {
        Map<DataType, Long> types = new EnumMap<>(DataType.class);
        types.put(DataType.FLOAT32, symbol(lib, "ompi_mpi_float"));
        types.put(DataType.FLOAT64, symbol(lib, "ompi_mpi_double"));
        types.put(DataType.INT8, symbol(lib, "ompi_mpi_int8_t"));
        types.put(DataType.UINT8, symbol(lib, "ompi_mpi_uint8_t"));
        types.put(DataType.INT32, symbol(lib, "ompi_mpi_int32_t"));
        types.put(DataType.INT64, symbol(lib, "ompi_mpi_int64_t"));
        Map<ReduceOp, Long> ops = new EnumMap<>(ReduceOp.class);
        ops.put(ReduceOp.SUM, symbol(lib, "ompi_mpi_op_sum"));
        ops.put(ReduceOp.PROD, symbol(lib, "ompi_mpi_op_prod"));
        ops.put(ReduceOp.MAX, symbol(lib, "ompi_mpi_op_max"));
        ops.put(ReduceOp.MIN, symbol(lib, "ompi_mpi_op_min"));
        return new MpiAbi("Open MPI", symbol(lib, "ompi_mpi_comm_world"), symbol(lib, "ompi_mpi_errors_return"),
                symbol(lib, "ompi_mpi_byte"), 1L, 0L, false, types, ops);
    }

    private static MpiAbi mpich() {
        Map<DataType, Long> types = new EnumMap<>(DataType.class);
        types.put(DataType.FLOAT32, 0x4c00040aL);
        types.put(DataType.FLOAT64, 0x4c00080bL);
        types.put(DataType.INT8, 0x4c000137L);
        types.put(DataType.UINT8, 0x4c00013bL);
        types.put(DataType.INT32, 0x4c000439L);
        types.put(DataType.INT64, 0x4c00083aL);
        Map<ReduceOp, Long> ops = new EnumMap<>(ReduceOp.class);
        ops.put(ReduceOp.MAX, 0x58000001L);
        ops.put(ReduceOp.MIN, 0x58000002L);
        ops.put(ReduceOp.SUM, 0x58000003L);
        ops.put(ReduceOp.PROD, 0x58000004L);
        return new MpiAbi("MPICH", 0x44000000L, 0x54000001L, 0x4c00010dL, -1L, 1L, true, types, ops);
    }

    private static long symbol(NativeLibrary lib, String name) {
        return Pointer.nativeValue(lib.getGlobalVariableAddress(name));
    }

    /** A handle an MPI function wrote into {@code memory} (a pointer, or an int for MPICH). */
    long handleAt(com.sun.jna.Memory memory) {
        return intHandles ? memory.getInt(0) : memory.getLong(0);
    }
}
