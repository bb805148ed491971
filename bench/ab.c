/* ab N -- CMD_A ... -- CMD_B ... : runs A and B in turn, N times each (which goes first
 * alternates), timing each fork+exec+wait; prints the medians and quartiles of both and
 * of the per-pair ratio B/A. Pairs taken back to back see the same machine state,
 * which runs minutes apart do not (a shared machine's speed moves by 10-25 % between half
 * hours). The commands' standard output goes to /dev/null; a failing command stops it.
 * Built by the bench scripts that use it (cc -O2 bench/ab.c). */
#include <string.h>

#include "runcmd.h"

int main(int argc, char **argv)
{
    if (argc < 6 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: ab N -- CMD_A ... -- CMD_B ...\n");
        return 2;
    }
    int n = atoi(argv[1]), i = 3;
    while (i < argc && strcmp(argv[i], "--") != 0)
        i++;
    if (n < 1 || i >= argc - 1) {
        fprintf(stderr, "usage: ab N -- CMD_A ... -- CMD_B ...\n");
        return 2;
    }
    argv[i] = NULL;
    char **A = argv + 3, **B = argv + i + 1;
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b), *r = malloc((size_t)n * sizeof *r);
    if (!a || !b || !r)
        return 2;
    for (int k = 0; k < 2; k++) /* warm the page cache and the binaries */
        run("ab", A), run("ab", B);
    for (int k = 0; k < n; k++) {
        if (k & 1)
            b[k] = run("ab", B), a[k] = run("ab", A);
        else
            a[k] = run("ab", A), b[k] = run("ab", B);
        r[k] = b[k] / a[k];
    }
    qsort(a, (size_t)n, sizeof *a, cmp_double);
    qsort(b, (size_t)n, sizeof *b, cmp_double);
    qsort(r, (size_t)n, sizeof *r, cmp_double);
    printf("A median %.3f ms (q1 %.3f q3 %.3f) | B median %.3f ms (q1 %.3f q3 %.3f) | B/A median %.4f (q1 %.4f q3 %.4f)\n",
           a[n / 2], a[n / 4], a[3 * n / 4], b[n / 2], b[n / 4], b[3 * n / 4], r[n / 2], r[n / 4], r[3 * n / 4]);
    free(a), free(b), free(r);
    return 0;
}
