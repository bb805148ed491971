/* A small program exercising the tracer: recursion, threads, longjmp, a tail call,
 * user events. `prog N` makes N recursion levels. */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include "traza_rt.h"

void traza_rt_event(uint32_t id, int64_t value) __attribute__((weak));

static jmp_buf jb;
volatile int sink;

__attribute__((noinline)) int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

__attribute__((noinline, optimize("no-optimize-sibling-calls"))) int deep(int n)
{
    if (n == 0)
        return 0;
    int r = deep(n - 1);
    sink += r;
    return r + 1;
}

__attribute__((noinline)) void leaf(int x) { sink += x; }

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
        thrower(3);
    leaf(1);
}

__attribute__((noinline)) int tail_target(int x) { sink += x; return x + 1; }
__attribute__((noinline)) int tail_caller(int x) { return tail_target(x * 2); }

__attribute__((noinline)) void *worker(void *arg)
{
    for (int i = 0; i < 3; i++)
        leaf(i);
    if (traza_rt_event)
        traza_rt_event(7, (intptr_t)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5;
    if (argc > 2) { /* prog N DEPTH: one deep recursion only */
        printf("deep=%d\n", deep(atoi(argv[2])));
        return 0;
    }
    printf("fact=%d\n", fact(n));
    catcher();
    printf("tail=%d\n", tail_caller(20));
    pthread_t th[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    if (traza_rt_event)
        traza_rt_event(42, -5);
    return 0;
}
