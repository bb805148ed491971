/* ARM -pg test program for the frames whose prologue pushes argument registers
 * before the frame (built by rt/rt.mk as variadic.O1, variadic.Os, and as
 * variadic.thumb and variadic.nofp for the messages): a vsnprintf-based logger
 * called from several places, variadic functions with 1 to 4 named arguments
 * (push {r0-r3}, {r1-r3}, {r2, r3}, str r3), a structure passed partly in registers
 * (sub sp, sp, #P), a frame saving VFP registers and one larger than an immediate.
 * Prints what it computed; exits 0. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct big { int a[6]; };
static char log_buf[4096];
static size_t log_used;
volatile int sink;

__attribute__((noinline)) int log_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(log_buf + log_used, sizeof log_buf - log_used, fmt, ap);
    va_end(ap);
    log_used += (size_t)n;
    return n;
}

__attribute__((noinline)) int sum2(int a, int b, ...)
{
    va_list ap;
    va_start(ap, b);
    int r = a + b + va_arg(ap, int);
    va_end(ap);
    return r;
}

__attribute__((noinline)) int sum3(int a, int b, int c, ...)
{
    va_list ap;
    va_start(ap, c);
    int r = a + b + c + va_arg(ap, int);
    va_end(ap);
    return r;
}

__attribute__((noinline)) int sum4(int a, int b, int c, int d, ...)
{
    va_list ap;
    va_start(ap, d);
    int r = a + b + c + d + va_arg(ap, int);
    va_end(ap);
    return r;
}

__attribute__((noinline)) int split(int a, struct big s) { return a + s.a[0] + s.a[5]; }

__attribute__((noinline)) double blend(double a, double b)
{
    double x = a * b;
    sink += (int)x;
    log_msg("blend %.1f %.1f\n", a, b);
    return x + a;
}

__attribute__((noinline)) int large(int i)
{
    char buf[70000];
    memset(buf, i, sizeof buf);
    sink += buf[i * 1000];
    return log_msg("large %d\n", buf[69999]);
}

__attribute__((noinline)) void step(int i) { log_msg("step %d of %s\n", i, "loop"); }

int main(void)
{
    for (int i = 0; i < 3; i++)
        step(i);
    struct big s = {{1, 2, 3, 4, 5, 6}};
    int t = sum2(1, 2, 3) + sum3(1, 2, 3, 4) + sum4(1, 2, 3, 4, 5) + split(10, s);
    double d = blend(1.5, 2.0);
    t += large(7);
    log_msg("main %d %d %d %d %d %.2f\n", 1, 2, 3, 4, t, d);
    fputs(log_buf, stdout);
    return 0;
}
