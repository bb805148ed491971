/* abn N CMD_1 ... [-- CMD_2 ...]... : runs the commands in rotation, N times each (the
 * one that goes first moves by one each round), timing each fork+exec+wait, and prints
 * one line with the median time of each command in ms. Runs taken a few milliseconds
 * apart see the same machine state: on a shared VM, whose speed changes every few
 * seconds, a row of abn is a snapshot of one phase (bench/itf_phases.sh). The commands'
 * standard output goes to /dev/null; a failing command stops it. */
#include <string.h>

#include "runcmd.h"

#define MAXCMD 16

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[1]) : 0, k = 0;
    if (n < 1) {
        fprintf(stderr, "usage: abn N CMD_1 ... [-- CMD_2 ...]...\n");
        return 2;
    }
    char **c[MAXCMD];
    c[k++] = argv + 2;
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            if (k == MAXCMD || i + 1 >= argc) {
                fprintf(stderr, "abn: at most %d commands, none empty\n", MAXCMD);
                return 2;
            }
            argv[i] = NULL;
            c[k++] = argv + i + 1;
        }
    double *t = malloc((size_t)k * (size_t)n * sizeof *t);
    if (!t)
        return 2;
    for (int r = 0; r < n; r++)
        for (int j = 0; j < k; j++) {
            int q = (j + r) % k;
            t[q * n + r] = run("abn", c[q]);
        }
    for (int j = 0; j < k; j++) {
        qsort(t + j * n, (size_t)n, sizeof *t, cmp_double);
        printf("%s%.3f", j ? " " : "", t[j * n + n / 2]);
    }
    printf("\n");
    free(t);
    return 0;
}
