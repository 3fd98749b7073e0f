/**
 * Whether C2 traps on stores into an array field whose element type is an interface (as the TCP pipeline's window
 * stored its transfers into {@code Transfer[]}), against an array of an abstract class and an {@code Object[]}:
 * three methods, each storing new objects into its field's array in a hot loop. With
 *
 * <pre>java -Xlog:deoptimization=debug benchmarks/compare/InterfaceArrayStore.java 2&gt;&amp;1 | grep InterfaceArrayStore</pre>
 *
 * JDK 25 logs four {@code array_check} traps in {@code intoInterfaceArray} (C2 guesses the array's exact class
 * wrongly until it has trapped four times at that store) and none in the other two (benchmarks/results/history-tcp.md).
 */
public class InterfaceArrayStore {

    interface Shape {
        int sides();
    }

    static final class Triangle implements Shape {
        public int sides() {
            return 3;
        }
    }

    static final class Square implements Shape {
        public int sides() {
            return 4;
        }
    }

    abstract static class Polygon {
        abstract int sides();
    }

    static final class Pentagon extends Polygon {
        int sides() {
            return 5;
        }
    }

    private final Shape[] shapes = new Shape[4];
    private final Polygon[] polygons = new Polygon[4];
    private final Object[] objects = new Object[4];

    int intoInterfaceArray(int i) {
        shapes[i & 3] = (i & 1) == 0 ? new Triangle() : new Square();
        return shapes[(i + 1) & 3] == null ? 0 : 1;
    }

    int intoClassArray(int i) {
        polygons[i & 3] = new Pentagon();
        return polygons[(i + 1) & 3] == null ? 0 : 1;
    }

    int intoObjectArray(int i) {
        objects[i & 3] = (i & 1) == 0 ? new Triangle() : new Square();
        return objects[(i + 1) & 3] == null ? 0 : 1;
    }

    public static void main(String[] args) {
        InterfaceArrayStore t = new InterfaceArrayStore();
        long stored = 0;
        for (int i = 0; i < 2_000_000; i++) {
            stored += t.intoInterfaceArray(i) + t.intoClassArray(i) + t.intoObjectArray(i);
        }
        System.out.println(stored + " stores checked");
    }
}
