/* ARM/Thumb-2 test program for the -fpatchable-function-entry hook mode (built by
 * rt/rt.mk as pfe.thumb, pfe.arm, and with -pg as pfe.thumbpg): nested calls,
 * recursion, a leaf, 64-bit and double return values, double arguments, longjmp and
 * a tail call; `pfe N DEPTH`: a recursion DEPTH deep. Prints the values so a test sees registers survive the hooks. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include "traza_rt.h"

void traza_rt_event(uint32_t id, int64_t value) __attribute__((weak));

static jmp_buf jb;
volatile int sink;

__attribute__((noinline)) int leaf(int x) { sink += x; return x + 1; }
__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) long long wide(int x) { return ((long long)x << 36) + leaf(x); }
__attribute__((noinline)) double scale(double a, double b, int n) { return a * b + n + leaf(n); }
__attribute__((noinline)) int outer(int x) { return leaf(x) + (int)wide(x) + fib(4); }

__attribute__((noinline, optimize("no-optimize-sibling-calls"))) int deep(int n)
{
    if (n == 0)
        return 0;
    int r = deep(n - 1);
    sink += r;
    return r + 1;
}

__attribute__((noinline)) void thrower(int depth)
{
    if (depth == 0)
        longjmp(jb, 1);
    thrower(depth - 1);
    sink++;
}

__attribute__((noinline)) void catcher(void)
{
    if (setjmp(jb) == 0)
        thrower(2);
    leaf(7);
}

__attribute__((noinline)) int tail_target(int x) { sink += x; return x + 1; }
__attribute__((noinline)) int tail_caller(int x) { return tail_target(x * 2); }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3;
    if (argc > 2) { /* pfe N DEPTH: one deep recursion only (beyond the shadow stack) */
        printf("deep=%d\n", deep(atoi(argv[2])));
        return 0;
    }
    printf("outer=%d\n", outer(n));
    printf("wide=%lld\n", wide(n));
    printf("scale=%.3f\n", scale(1.5, 2.25, n));
    catcher();
    printf("tail=%d\n", tail_caller(20));
    if (traza_rt_event) /* a user event: the dump exists even with every site off */
        traza_rt_event(9, n);
    return 0;
}
