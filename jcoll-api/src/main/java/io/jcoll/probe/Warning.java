package io.jcoll.probe;

/**
 * A known trap found on this machine.
 *
 * @param problem what is wrong and what it costs
 * @param fix     what to do about it
 */
public record Warning(String problem, String fix) {

    @Override
    public String toString() {
        return problem + " Fix: " + fix;
    }
}
