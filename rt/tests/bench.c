/* The call-heavy benchmark program: `bench loop N` calls a small non-inlined
 * function N times; `bench fib N` computes fib(N) recursively. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile long sink;

__attribute__((noinline)) void small(long i) { sink += i; }
__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv)
{
    long n = argc > 2 ? atol(argv[2]) : 1000;
    if (argc > 1 && strcmp(argv[1], "fib") == 0) {
        printf("%ld\n", fib((int)n));
        return 0;
    }
    for (long i = 0; i < n; i++)
        small(i);
    printf("%ld\n", (long)sink);
    return 0;
}
