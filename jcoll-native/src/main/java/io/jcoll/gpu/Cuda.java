package io.jcoll.gpu;

import io.jcoll.exceptions.JcollException;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Pointer;

import java.nio.ByteBuffer;

/**
 * The checked CUDA runtime calls jcoll makes. Every call's result is checked
 * and turned into a {@link NativeCallException} naming the call and CUDA's
 * explanation; every size is checked before a pointer is made. Callers must
 * have passed {@link GpuRuntime#require}.
 */
public final class Cuda {

    private Cuda() {
    }

    static void check(int code, String call) {
        if (code != 0) {
            throw new NativeCallException(call, JcollException.NONE, call + " failed with CUDA error " + code + ": "
                    + cudart.cudaGetErrorString(code).getString(), code);
        }
    }

    public static int deviceCount() {
        int[] n = new int[1];
        check(cudart.cudaGetDeviceCount(n), "cudaGetDeviceCount");
        return n[0];
    }

    public static void setDevice(int device) {
        int code = cudart.cudaSetDevice(device);
        if (code != 0) { // the message is built only on failure: this call sits in wait loops
            check(code, "cudaSetDevice(" + device + ")");
        }
    }

    public static int currentDevice() {
        int[] d = new int[1];
        check(cudart.cudaGetDevice(d), "cudaGetDevice");
        return d[0];
    }

    private static String currentDeviceOrUnknown() {
        int[] d = new int[1];
        return cudart.cudaGetDevice(d) == 0 ? Integer.toString(d[0]) : "unknown";
    }

    /** Free memory on {@code device}, in bytes (cudaMemGetInfo); the current device is left as it was. */
    public static long freeMemory(int device) {
        int before = currentDevice();
        setDevice(device);
        try (org.bytedeco.javacpp.SizeTPointer free = new org.bytedeco.javacpp.SizeTPointer(1);
             org.bytedeco.javacpp.SizeTPointer total = new org.bytedeco.javacpp.SizeTPointer(1)) {
            check(cudart.cudaMemGetInfo(free, total), "cudaMemGetInfo");
            return free.get();
        } finally {
            setDevice(before);
        }
    }

    /** Device memory; returns its address. */
    public static long malloc(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("cannot allocate " + bytes + " bytes");
        }
        Pointer p = new Pointer();
        check(cudart.cudaMalloc(p, bytes), "cudaMalloc(" + bytes + ")");
        return p.address();
    }

    public static void free(long address) {
        check(cudart.cudaFree(Pointers.at(address)), "cudaFree");
    }

    /** Page-locked host memory as a direct buffer (for staging); free with {@link #freeHost}. */
    public static ByteBuffer mallocHost(int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("cannot allocate " + bytes + " bytes");
        }
        Pointer p = new Pointer();
        check(cudart.cudaMallocHost(p, bytes), "cudaMallocHost(" + bytes + ")");
        return new org.bytedeco.javacpp.BytePointer(p).capacity(bytes).asByteBuffer();
    }

    public static void freeHost(ByteBuffer pinned) {
        check(cudart.cudaFreeHost(new Pointer(pinned)), "cudaFreeHost");
    }

    /** Copies between device memory and a direct host buffer's remaining bytes (direction by address, UVA). */
    public static void copyToDevice(long dst, ByteBuffer src, CUstream_st stream) {
        check(cudart.cudaMemcpyAsync(Pointers.at(dst), new Pointer(src), src.remaining(), cudart.cudaMemcpyDefault, stream),
                "cudaMemcpyAsync(host to device, " + src.remaining() + " bytes to 0x" + Long.toHexString(dst)
                        + " on current GPU " + currentDeviceOrUnknown() + ")");
    }

    public static void copyToHost(ByteBuffer dst, long src, CUstream_st stream) {
        check(cudart.cudaMemcpyAsync(new Pointer(dst), Pointers.at(src), dst.remaining(), cudart.cudaMemcpyDefault, stream),
                "cudaMemcpyAsync(device to host, " + dst.remaining() + " bytes from 0x" + Long.toHexString(src)
                        + " on current GPU " + currentDeviceOrUnknown() + ")");
    }

    /** Copies device memory into a direct buffer's remaining bytes and waits for it (legacy default stream). */
    public static void copyToHostNow(ByteBuffer dst, long src) {
        CUstream_st legacy = stream(0);
        copyToHost(dst, src, legacy);
        synchronize(legacy);
    }

    /** Copies a direct buffer's remaining bytes into device memory and waits for it (legacy default stream). */
    public static void copyToDeviceNow(long dst, ByteBuffer src) {
        CUstream_st legacy = stream(0);
        copyToDevice(dst, src, legacy);
        synchronize(legacy);
    }

    public static void copyDevice(long dst, long src, long bytes, CUstream_st stream) {
        check(cudart.cudaMemcpyAsync(Pointers.at(dst), Pointers.at(src), bytes, cudart.cudaMemcpyDefault, stream),
                "cudaMemcpyAsync(device to device, " + bytes + " bytes)");
    }

    public static CUstream_st createStream() {
        CUstream_st s = new CUstream_st();
        check(cudart.cudaStreamCreateWithFlags(s, cudart.cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        return s;
    }

    public static void synchronize(CUstream_st stream) {
        check(cudart.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }

    public static void destroy(CUstream_st stream) {
        check(cudart.cudaStreamDestroy(stream), "cudaStreamDestroy");
    }

    public static CUevent_st createEvent() {
        CUevent_st e = new CUevent_st();
        check(cudart.cudaEventCreateWithFlags(e, cudart.cudaEventDisableTiming), "cudaEventCreateWithFlags");
        return e;
    }

    public static void record(CUevent_st event, CUstream_st stream) {
        check(cudart.cudaEventRecord(event, stream), "cudaEventRecord");
    }

    /** Whether everything before the event has finished. */
    public static boolean done(CUevent_st event) {
        int code = cudart.cudaEventQuery(event);
        if (code == cudart.cudaErrorNotReady) {
            return false;
        }
        check(code, "cudaEventQuery");
        return true;
    }

    public static void destroy(CUevent_st event) {
        check(cudart.cudaEventDestroy(event), "cudaEventDestroy");
    }

    /** A stream someone else created, by its raw handle (0 is the legacy default stream). */
    public static CUstream_st stream(long handle) {
        return new CUstream_st(Pointers.at(handle));
    }
}
