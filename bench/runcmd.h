/* The timed run shared by bench/ab.c and bench/abn.c: fork, exec with standard output
 * to /dev/null, wait; a command that fails stops the runner. */
#ifndef BENCH_RUNCMD_H
#define BENCH_RUNCMD_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The milliseconds argv takes from fork to its exit. */
static double run(const char *who, char **argv)
{
    double t = now_ms();
    pid_t p = fork();
    if (p < 0) {
        fprintf(stderr, "%s: fork: ", who);
        perror(NULL);
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
        fprintf(stderr, "%s: %s failed\n", who, argv[0]);
        exit(1);
    }
    return now_ms() - t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
