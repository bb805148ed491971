/* traza record [-o DUMP] [--mode ring|stream] [--buffer SIZE] [--import NAME] -- PROGRAM ARGS */
#include "cli/cli.h"
#include "util/util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char cmd_record_usage[] =
    "usage: traza record [-o DUMP] [--mode ring|stream] [--buffer SIZE] [--import NAME] -- PROGRAM [ARGS]\n"
    "\n"
    "Runs PROGRAM with the traza tracer runtime and writes its dump (.tzr, default\n"
    "traza-rt.tzr). PROGRAM must be compiled with `-pg -mfentry` (recommended) or\n"
    "`-finstrument-functions`; the runtime is preloaded (LD_PRELOAD), or already linked\n"
    "in (pkg-config traza-rt), in which case the linked one records.\n"
    "  -o, --output DUMP   the dump file (default traza-rt.tzr)\n"
    "  --mode MODE         ring: a flight recorder keeping the newest events (default);\n"
    "                      stream: every block is written out, nothing is lost silently\n"
    "  --buffer SIZE       buffer bytes per thread (ring; suffix K, M, G; default 8M)\n"
    "  --import NAME       import the dump into the workspace as trace NAME afterwards\n"
    "The runtime library is $TRAZA_RT_LIB, else libtraza-rt.so next to traza (build tree:\n"
    "rt/, installed: ../lib/). A program that dies of SIGSEGV, SIGBUS, SIGABRT, SIGFPE or\n"
    "SIGILL writes its dump first; a forked child writes its own, DUMP with .PID before\n"
    "the extension. Exit status: 1 if no dump was written.\n";

static int find_rt(char *out, size_t size)
{
    const char *env = getenv("TRAZA_RT_LIB");
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return access(out, R_OK) == 0 ? 0 : -1;
    }
    static const char *const rel[] = {"rt/libtraza-rt.so", "../lib/libtraza-rt.so", "../lib/traza/libtraza-rt.so"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
        if (cli_exe_relative(out, size, rel[i]) == 0 && access(out, R_OK) == 0)
            return 0;
    return -1;
}

int cmd_record(traza_cli *cli, int argc, char **argv)
{
    enum { OPT_MODE = OPT_FIRST_FREE, OPT_BUFFER, OPT_IMPORT };
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                             {"output", required_argument, NULL, 'o'},
                                             {"mode", required_argument, NULL, OPT_MODE},
                                             {"buffer", required_argument, NULL, OPT_BUFFER},
                                             {"import", required_argument, NULL, OPT_IMPORT},
                                             {NULL, 0, NULL, 0}};
    const char *out = "traza-rt.tzr", *mode = "ring", *buffer = NULL, *import = NULL;
    int c;
    while ((c = cli_getopt(cli, argc, argv, "+:hqw:o:", longopts)) != -1) {
        if (c == 'o') out = optarg;
        else if (c == OPT_MODE) {
            mode = optarg;
            if (strcmp(mode, "ring") != 0 && strcmp(mode, "stream") != 0)
                return cli_usage_error("record", "--mode is ring or stream, not '%s'", mode);
        } else if (c == OPT_BUFFER) buffer = optarg;
        else if (c == OPT_IMPORT) import = optarg;
        else {
            int r = cli_common_opt(cli, "record", c);
            if (r == -1) return EXIT_OK;
            if (r <= 0) return EXIT_USAGE;
        }
    }
    if (optind >= argc)
        return cli_usage_error("record", "expected the program to run (after --)");
    char rt[PATH_MAX + 64];
    if (find_rt(rt, sizeof rt) < 0) {
        fprintf(stderr, "traza record: cannot find libtraza-rt.so (set TRAZA_RT_LIB)\n");
        return EXIT_FAIL;
    }
    char absout[PATH_MAX];
    if (out[0] == '/')
        snprintf(absout, sizeof absout, "%s", out);
    else {
        char cwd[PATH_MAX - 256];
        if (!getcwd(cwd, sizeof cwd)) {
            fprintf(stderr, "traza record: getcwd: %s\n", strerror(errno));
            return EXIT_FAIL;
        }
        snprintf(absout, sizeof absout, "%s/%s", cwd, out);
    }
    unlink(absout);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "traza record: fork: %s\n", strerror(errno));
        return EXIT_FAIL;
    }
    if (pid == 0) {
        const char *old = getenv("LD_PRELOAD");
        char *pre = old && *old ? tz_asprintf("%s:%s", rt, old) : tz_strdup(rt);
        char pidbuf[32];
        snprintf(pidbuf, sizeof pidbuf, "%ld", (long)getpid());
        if (!pre || setenv("LD_PRELOAD", pre, 1) || setenv("TRAZA_RT_OUT", absout, 1) ||
            setenv("TRAZA_RT_MODE", mode, 1) || setenv("TRAZA_RT_PID", pidbuf, 1) ||
            (buffer && setenv("TRAZA_RT_BUFSIZE", buffer, 1)))
            _exit(127);
        execvp(argv[optind], argv + optind);
        fprintf(stderr, "traza record: cannot run %s: %s\n", argv[optind], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "traza record: waitpid: %s\n", strerror(errno));
            return EXIT_FAIL;
        }
    struct stat st;
    int have = stat(absout, &st) == 0;
    if (WIFSIGNALED(status))
        fprintf(stderr, "traza record: %s died of signal %d (%s)%s\n", argv[optind], WTERMSIG(status),
                strsignal(WTERMSIG(status)), have ? "; the dump holds its events until then" : "");
    if (!have && WIFSIGNALED(status)) {
        fprintf(stderr, "traza record: no dump written (the runtime writes one on SIGSEGV, SIGBUS, SIGABRT, "
                        "SIGFPE and SIGILL, not on this signal; --mode stream keeps what was flushed)\n");
        return EXIT_FAIL;
    }
    if (!have) {
        fprintf(stderr, "traza record: %s exited (status %d) without writing %s: was it compiled with "
                        "-pg -mfentry or -finstrument-functions?\n",
                argv[optind], WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out);
        return EXIT_FAIL;
    }
    if (!cli->quiet && !cli->json)
        fprintf(stderr, "traza record: %s: %lld bytes (program exit status %d)\n", out, (long long)st.st_size,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    if (import) {
        traza_workspace *ws = cli_ws(cli);
        if (!ws)
            return EXIT_FAIL;
        traza_err err;
        traza_err_clear(&err);
        traza_import_opts o = {0};
        o.format = "rtdump";
        o.name = import;
        traza_trace_info info;
        const char *paths[1] = {absout};
        if (traza_import(ws, paths, 1, &o, &info, &err) < 0)
            return cli_fail(cli, &err);
        if (cli->json) {
            tz_buf b;
            tz_buf_init(&b);
            tz_buf_puts(&b, "{\"dump\":");
            tz_json_str(&b, out);
            tz_buf_puts(&b, ",\"trace\":");
            tz_json_str(&b, info.name);
            tz_buf_printf(&b, ",\"events\":%lld}\n", (long long)info.events);
            fputs(b.s ? b.s : "", stdout);
            tz_buf_free(&b);
        } else if (!cli->quiet)
            printf("imported '%s': %lld events\n", info.name, (long long)info.events);
        traza_trace_info_clear(&info);
    } else if (cli->json) {
        tz_buf b;
        tz_buf_init(&b);
        tz_buf_puts(&b, "{\"dump\":");
        tz_json_str(&b, out);
        tz_buf_printf(&b, ",\"bytes\":%lld}\n", (long long)st.st_size);
        fputs(b.s ? b.s : "", stdout);
        tz_buf_free(&b);
    }
    return EXIT_OK;
}
