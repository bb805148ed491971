/* abn N CMD_1 ... [-- CMD_2 ...]... : runs the commands in rotation, N times each (the
 * one that goes first moves by one each round), timing each fork+exec+wait, and prints
 * one line with the median time of each command in ms. Runs taken a few milliseconds
 * apart see the same machine state: on the VM measured, whose speed changes every few
 * seconds, a row of abn is a snapshot of one phase (bench/itf_phases.sh). The commands'
 * standard output goes to /dev/null; a failing command stops it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXCMD 16

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double run(char **argv)
{
    double t = now_ms();
    pid_t p = fork();
    if (p < 0) {
        perror("abn: fork");
        exit(2);
    }
    if (p == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 1);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    if (waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "abn: %s failed\n", argv[0]);
        exit(1);
    }
    return now_ms() - t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

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
            t[q * n + r] = run(c[q]);
        }
    for (int j = 0; j < k; j++) {
        qsort(t + j * n, (size_t)n, sizeof *t, cmp);
        printf("%s%.3f", j ? " " : "", t[j * n + n / 2]);
    }
    printf("\n");
    free(t);
    return 0;
}
