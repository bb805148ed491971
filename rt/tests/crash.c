/* Robustness cases of the tracer (tests/rt/t_crash*.sh); the program counts its own
 * calls so the test can compare them with the trace.
 *   crash sig N     N calls of work() while a profiling timer's instrumented handler
 *                   runs on_tick() -> tick_leaf(); prints "work N ticks T"
 *   crash fork N    the parent and a child each call work() N times, the child then
 *                   vforks and execs /bin/true
 *   crash segv N | abort N | fpe N   N calls of work(), then dies of that signal
 *   crash jmp N     N times: jumper() -> deep() -> longjmp back; then work()
 *   crash snap N    N calls of work(), SIGUSR2, N more, SIGUSR2 again; prints "snaps 2"
 *   crash file N F  N calls of work(), creates the file F and waits (up to 10 s) until
 *                   it is gone, N more calls; prints "consumed 1" or "consumed 0" */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

volatile long sink;
static volatile sig_atomic_t ticks;
static jmp_buf env;

__attribute__((noinline)) void tick_leaf(int s) { sink += s; }
__attribute__((noinline)) void on_tick(int s)
{
    ticks++;
    tick_leaf(s);
}
__attribute__((noinline)) void work(long i) { sink += i; }
__attribute__((noinline)) void deep(int d)
{
    if (d == 0)
        longjmp(env, 1);
    deep(d - 1);
    sink++;
}
__attribute__((noinline)) void jumper(void)
{
    if (setjmp(env) == 0)
        deep(3);
}
__attribute__((noinline)) void crash_now(const char *how)
{
    if (strcmp(how, "segv") == 0)
        *(volatile int *)(uintptr_t)sink = 1; /* sink is 0 or small: an unmapped page */
    else if (strcmp(how, "fpe") == 0)
        raise(SIGFPE);
    else
        abort();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "sig";
    long n = argc > 2 ? atol(argv[2]) : 1000;
    if (strcmp(mode, "sig") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_tick;
        sigaction(SIGPROF, &sa, NULL);
        struct itimerval it = {{0, 100}, {0, 100}};
        setitimer(ITIMER_PROF, &it, NULL);
        for (long i = 0; i < n; i++)
            work(i);
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_PROF, &off, NULL);
        printf("work %ld ticks %ld\n", n, (long)ticks);
    } else if (strcmp(mode, "fork") == 0) {
        pid_t pid = fork();
        for (long i = 0; i < n; i++)
            work(i);
        if (pid == 0) {
            pid_t v = vfork();
            if (v == 0) {
                execl("/bin/true", "true", (char *)NULL);
                _exit(127);
            }
            waitpid(v, NULL, 0);
            return 0;
        }
        waitpid(pid, NULL, 0);
        printf("child %ld\n", (long)pid);
    } else if (strcmp(mode, "snap") == 0) {
        for (int k = 0; k < 2; k++) {
            for (long i = 0; i < n; i++)
                work(i);
            raise(SIGUSR2);
        }
        printf("snaps 2\n");
    } else if (strcmp(mode, "file") == 0 && argc > 3) {
        for (long i = 0; i < n; i++)
            work(i);
        FILE *f = fopen(argv[3], "w");
        if (f)
            fclose(f);
        int gone = 0;
        for (int k = 0; k < 1000 && !gone; k++) {
            gone = access(argv[3], F_OK) != 0;
            if (!gone)
                usleep(10000);
        }
        for (long i = 0; i < n; i++)
            work(i);
        printf("consumed %d\n", gone);
    } else if (strcmp(mode, "jmp") == 0) {
        for (long i = 0; i < n; i++)
            jumper();
        work(0);
        printf("jumps %ld\n", n);
    } else {
        for (long i = 0; i < n; i++)
            work(i);
        fflush(stdout);
        crash_now(mode);
    }
    return 0;
}
