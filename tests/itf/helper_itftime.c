/* Times the library side of random access: traza_itf_open_path + traza_itf_extract of
 * COUNT records from FROM, REPEAT times (each a fresh open, output to /dev/null).
 * Prints the median and minimum in milliseconds. Used by bench/itf.sh.
 *   helper_itftime FILE.tzi FROM COUNT [REPEAT] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "traza/itf.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s FILE.tzi FROM COUNT [REPEAT]\n", argv[0]);
        return 2;
    }
    unsigned long long from = strtoull(argv[2], NULL, 10), count = strtoull(argv[3], NULL, 10);
    int rep = argc > 4 ? atoi(argv[4]) : 15;
    if (rep < 1 || rep > 1000)
        rep = 15;
    double *t = malloc(sizeof *t * (size_t)rep);
    FILE *out = fopen("/dev/null", "w");
    if (!t || !out)
        return 1;
    for (int i = 0; i < rep; i++) {
        traza_err err = {0};
        double t0 = now_ms();
        traza_itf_reader *r = traza_itf_open_path(argv[1], &err);
        if (!r || traza_itf_extract(r, from, count, out, &err) < 0) {
            fprintf(stderr, "error: %s\n", err.msg);
            return 1;
        }
        traza_itf_close(r);
        t[i] = now_ms() - t0;
    }
    qsort(t, (size_t)rep, sizeof *t, cmp_d);
    printf("library open+extract of %llu records at %llu: median %.2f ms, min %.2f ms (%d runs)\n", count, from,
           t[rep / 2], t[0], rep);
    fclose(out);
    free(t);
    return 0;
}
