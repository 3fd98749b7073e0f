package io.jcoll.shm;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * The C library's functions this transport calls ({@link ProcessVm}, {@link Tracer}), bound through
 * {@code java.lang.foreign} from JDK 22. This code is compiled for Java 17, so the API is reached by reflection,
 * once, and each function is called through a method handle whose first argument is where the call leaves its
 * errno ({@link Errno}); on JDK 17-21 nothing can be bound and {@link #unavailableReason} says so. Binding only:
 * what each function may be given, and what its result means, is checked by its caller.
 */
final class Libc {

    private static final Api API;
    private static final String UNAVAILABLE;

    static {
        Api api = null;
        String unavailable = null;
        if (Runtime.version().feature() < 22) {
            unavailable = "it needs JDK 22 or later (java.lang.foreign, to call the C library); this is JDK "
                    + Runtime.version().feature();
        } else {
            try {
                api = new Api();
            } catch (ReflectiveOperationException | RuntimeException e) {
                unavailable = "java.lang.foreign could not be reached (" + e + ")";
            }
        }
        API = api;
        UNAVAILABLE = unavailable;
    }

    private Libc() {
    }

    /** Why no function can be bound on this JDK, or null where they can. */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /** A function of the C library, bound, or why not: {@code handle} is null where {@code unavailable} says why. */
    record Function(MethodHandle handle, String unavailable) {
    }

    /**
     * The C library's {@code name}, returning {@code returns} and taking {@code params} (names of
     * {@code ValueLayout}'s constants: JAVA_INT, JAVA_LONG, ADDRESS), arguments from {@code firstVariadic} on passed
     * as a variadic function's (-1: none), as a handle typed {@code (Object errno, params...) -> returns}, memory
     * segments as Object; or why it cannot be bound (this JDK, a C library without it).
     */
    static Function find(String name, String returns, int firstVariadic, String... params) {
        if (API == null) {
            return new Function(null, UNAVAILABLE);
        }
        try {
            return new Function(API.bind(name, returns, firstVariadic, params), null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return new Function(null, name + " could not be bound through java.lang.foreign (" + e + ")");
        }
    }

    /** The address of {@code buffer}'s byte at its position; 0 for a heap buffer or where nothing can be bound. */
    static long address(ByteBuffer buffer) {
        if (API == null || !buffer.isDirect()) {
            return 0;
        }
        try {
            return (long) API.addressOf.invokeExact((Buffer) buffer);
        } catch (Throwable e) {
            return 0;
        }
    }

    /** {@code buffer} (direct) as a memory segment, to pass where a function takes a pointer. */
    static Object segment(ByteBuffer buffer) {
        try {
            return (Object) API.segmentOf.invokeExact((Buffer) buffer);
        } catch (Throwable e) {
            throw new IllegalStateException("no memory segment for a direct buffer", e);
        }
    }

    /** Where a calling thread's functions leave errno: one per thread, made once. */
    static final class Errno {
        private static final ThreadLocal<Errno> OWN = ThreadLocal.withInitial(Errno::new);

        private final ByteBuffer state = ByteBuffer.allocateDirect(Math.max(8, API.captureBytes))
                .order(ByteOrder.nativeOrder());
        /** The segment to pass as a bound function's first argument. */
        final Object segment = segment(state);

        /** This thread's. */
        static Errno own() {
            return OWN.get();
        }

        /** The errno the last call through {@link #segment} left. */
        int value() {
            return state.getInt(API.errnoAt);
        }
    }

    /** The reflective half: java.lang.foreign's classes and the linker, found once. */
    private static final class Api {
        final Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
        final Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");
        final Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
        final Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
        final Class<?> valueLayoutClass = Class.forName("java.lang.foreign.ValueLayout");
        final Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
        final Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
        final Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
        final Object captureErrno = optionClass.getMethod("captureCallState", String[].class)
                .invoke(null, (Object) new String[] {"errno"});
        final int errnoAt;
        final int captureBytes;
        final MethodHandle segmentOf; // MemorySegment.ofBuffer, as (Buffer) -> Object
        final MethodHandle addressOf; // MemorySegment.ofBuffer(b).address(), as (Buffer) -> long

        Api() throws ReflectiveOperationException {
            Class<?> pathClass = Class.forName("java.lang.foreign.MemoryLayout$PathElement");
            Object state = optionClass.getMethod("captureStateLayout").invoke(null);
            Object errnoPath = array(pathClass,
                    pathClass.getMethod("groupElement", String.class).invoke(null, "errno"));
            errnoAt = (int) (long) layoutClass.getMethod("byteOffset", errnoPath.getClass()).invoke(state, errnoPath);
            captureBytes = (int) (long) layoutClass.getMethod("byteSize").invoke(state);
            MethodHandles.Lookup publicLookup = MethodHandles.publicLookup();
            MethodHandle ofBuffer = publicLookup.findStatic(segmentClass, "ofBuffer",
                    MethodType.methodType(segmentClass, Buffer.class));
            segmentOf = ofBuffer.asType(MethodType.methodType(Object.class, Buffer.class));
            addressOf = MethodHandles.filterReturnValue(ofBuffer,
                    publicLookup.findVirtual(segmentClass, "address", MethodType.methodType(long.class)));
        }

        MethodHandle bind(String name, String returns, int firstVariadic, String... params)
                throws ReflectiveOperationException {
            Optional<?> symbol = (Optional<?>) Class.forName("java.lang.foreign.SymbolLookup")
                    .getMethod("find", String.class).invoke(lookup, name);
            if (symbol.isEmpty()) {
                throw new IllegalStateException("the C library has no " + name);
            }
            Object[] layouts = new Object[params.length];
            Class<?>[] types = new Class<?>[params.length + 1];
            types[0] = Object.class; // the errno capture
            for (int i = 0; i < params.length; i++) {
                layouts[i] = valueLayoutClass.getField(params[i]).get(null);
                types[i + 1] = javaType(params[i]);
            }
            Object descriptor = descriptorClass
                    .getMethod("of", layoutClass, Array.newInstance(layoutClass, 0).getClass())
                    .invoke(null, valueLayoutClass.getField(returns).get(null), array(layoutClass, layouts));
            Object options = firstVariadic < 0 ? array(optionClass, captureErrno)
                    : array(optionClass, captureErrno,
                            optionClass.getMethod("firstVariadicArg", int.class).invoke(null, firstVariadic));
            MethodHandle handle = (MethodHandle) linkerClass.getMethod("downcallHandle", segmentClass,
                    descriptorClass, options.getClass()).invoke(linker, symbol.get(), descriptor, options);
            return handle.asType(MethodType.methodType(javaType(returns), types));
        }

        private Class<?> javaType(String layout) {
            return switch (layout) {
                case "JAVA_INT" -> int.class;
                case "JAVA_LONG" -> long.class;
                case "ADDRESS" -> Object.class;
                default -> throw new IllegalArgumentException("no Java type for " + layout);
            };
        }
    }

    private static Object array(Class<?> component, Object... elements) {
        Object a = Array.newInstance(component, elements.length);
        for (int i = 0; i < elements.length; i++) {
            Array.set(a, i, elements[i]);
        }
        return a;
    }
}
