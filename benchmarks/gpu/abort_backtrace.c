/*
 * LD_PRELOAD helper for drills: when a process aborts in native code (glibc's "munmap_chunk(): invalid
 * pointer" raises SIGABRT, which the JVM does not report), print the aborting thread's native stack to stderr,
 * then die as before. Frames name the library and offset even where symbols are hidden.
 *
 *   gcc -O1 -shared -fPIC -o abort_backtrace.so abort_backtrace.c
 *   LD_PRELOAD=$PWD/abort_backtrace.so java ...
 */
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void on_abort(int sig) {
    void *frames[64];
    int n = backtrace(frames, 64);
    static const char head[] = "\n=== SIGABRT: native stack of the aborting thread ===\n";
    write(STDERR_FILENO, head, sizeof head - 1);
    backtrace_symbols_fd(frames, n, STDERR_FILENO);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void install(void) {
    void *warm[1];
    backtrace(warm, 1); /* loads libgcc_s now, not inside the handler */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_abort;
    sigaction(SIGABRT, &sa, NULL);
}
