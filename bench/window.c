/* Benchmark driver: time to retrieve the events of a time window holding about N
 * events, in the middle of a trace, through traza_query and through traza_scan.
 * Prints "<events> <best ms query> <best ms scan> <best cpu ms query> <best cpu ms scan>".
 *   window WORKSPACE TRACE [N=10000] [REPEATS=7] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "traza/traza.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of this process: the machine may be shared, so wall time includes waits. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: window WORKSPACE TRACE [N] [REPEATS]\n");
        return 2;
    }
    long want = argc > 3 ? atol(argv[3]) : 10000;
    int reps = argc > 4 ? atoi(argv[4]) : 7;
    traza_err err;
    traza_ctx *ctx = traza_ctx_new(&err);
    traza_workspace *ws = ctx ? traza_workspace_open(ctx, argv[1], &err) : NULL;
    traza_trace *t = ws ? traza_trace_open(ws, argv[2], TRAZA_OPEN_READ, &err) : NULL;
    if (!t) {
        fprintf(stderr, "window: %s\n", err.msg);
        return 1;
    }
    const traza_trace_info *info = traza_trace_info_of(t);
    /* A window of want * mean gap ticks around the middle. */
    double gap = (double)(info->max_ts - info->min_ts) / (double)(info->events ? info->events : 1);
    traza_filter f;
    traza_filter_init(&f);
    f.has_from = f.has_to = 1;
    f.from = info->min_ts + (info->max_ts - info->min_ts) / 2;
    f.to = f.from + (int64_t)(gap * (double)want);
    double best = 1e30, best_cpu = 1e30;
    long got = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms(), c0 = cpu_ms();
        traza_cursor *c = traza_query(t, &f, &err);
        if (!c) {
            fprintf(stderr, "window: %s\n", err.msg);
            return 1;
        }
        const traza_event *e;
        long n = 0;
        int64_t sum = 0;
        while (traza_cursor_next(c, &e, &err) == 1) {
            n++;
            sum += e->ts;
        }
        traza_cursor_free(c);
        double dt = now_ms() - t0, dc = cpu_ms() - c0;
        if (dt < best)
            best = dt;
        if (dc < best_cpu)
            best_cpu = dc;
        got = n + (sum == 42); /* keep the loop honest */
    }
    double best_scan = 1e30, best_scan_cpu = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms(), c0 = cpu_ms();
        traza_scan *s = traza_scan_open(t, &f, &err);
        if (!s) {
            fprintf(stderr, "window: %s\n", err.msg);
            return 1;
        }
        traza_scan_batch b;
        long n = 0;
        int64_t sum = 0;
        while (traza_scan_next(s, &b, &err) == 1)
            for (size_t i = 0; i < b.n; i++, n++)
                sum += b.ts[i];
        traza_scan_free(s);
        double dt = now_ms() - t0, dc = cpu_ms() - c0;
        if (dt < best_scan)
            best_scan = dt;
        if (dc < best_scan_cpu)
            best_scan_cpu = dc;
        if (n + (sum == 42) != got) {
            fprintf(stderr, "window: scan saw %ld events, query %ld\n", n, got);
            return 1;
        }
    }
    printf("%ld %.3f %.3f %.3f %.3f\n", got, best, best_scan, best_cpu, best_scan_cpu);
    traza_trace_close(t);
    traza_workspace_close(ws);
    traza_ctx_free(ctx);
    return 0;
}
