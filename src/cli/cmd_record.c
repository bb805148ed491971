/* traza record [-o DUMP] [--mode ring|stream] [--buffer SIZE] [--import NAME] -- PROGRAM ARGS
 * traza record --target gdb://HOST:PORT --elf FW.elf [--name T] (a bare-metal target's ring) */
#include "cli/cli.h"
#include "cli/record_target.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

const char cmd_record_usage[] =
    "usage: traza record [-o DUMP] [--mode ring|stream] [--buffer SIZE] [--import NAME] -- PROGRAM [ARGS]\n"
    "       traza record --target gdb://HOST:PORT --elf FW.elf [--name T] [--duration S] [--interval MS]\n"
    "                    [--refresh MS] [-o DUMP]\n"
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
    "A bare-metal target (the Cortex-M runtime) through a GDB server (QEMU -gdb, OpenOCD,\n"
    "pyOCD, J-Link): every poll stops the target, reads what it wrote, lets it run again.\n"
    "  --target URL        gdb://HOST:PORT of the GDB server\n"
    "  --elf FW.elf        the firmware the target runs (finds traza_rt_control; names)\n"
    "  --name T            the trace name (default: the firmware's file name)\n"
    "  --duration S        stop after S seconds (default: when the target exits, or Ctrl-C)\n"
    "  --interval MS       milliseconds between polls (default 20)\n"
    "  --refresh MS        while recording, the trace is imported so far every MS\n"
    "                      milliseconds when new events arrived (traza serve follows it;\n"
    "                      marked rt.recording=1 until the end); 0: at the end only\n"
    "                      (default 1000)\n"
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
    enum { OPT_MODE = OPT_FIRST_FREE, OPT_BUFFER, OPT_IMPORT, OPT_TARGET, OPT_ELF, OPT_NAME, OPT_DURATION,
           OPT_INTERVAL, OPT_REFRESH };
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                             {"output", required_argument, NULL, 'o'},
                                             {"mode", required_argument, NULL, OPT_MODE},
                                             {"buffer", required_argument, NULL, OPT_BUFFER},
                                             {"import", required_argument, NULL, OPT_IMPORT},
                                             {"target", required_argument, NULL, OPT_TARGET},
                                             {"elf", required_argument, NULL, OPT_ELF},
                                             {"name", required_argument, NULL, OPT_NAME},
                                             {"duration", required_argument, NULL, OPT_DURATION},
                                             {"interval", required_argument, NULL, OPT_INTERVAL},
                                             {"refresh", required_argument, NULL, OPT_REFRESH},
                                             {NULL, 0, NULL, 0}};
    const char *out = "traza-rt.tzr", *mode = "ring", *buffer = NULL, *import = NULL;
    const char *target = NULL, *elf = NULL, *name = NULL;
    int out_set = 0;
    double duration = 0;
    long interval = 20, refresh = 1000;
    int c;
    while ((c = cli_getopt(cli, argc, argv, "+:hqw:o:", longopts)) != -1) {
        if (c == 'o') out = optarg, out_set = 1;
        else if (c == OPT_TARGET) target = optarg;
        else if (c == OPT_ELF) elf = optarg;
        else if (c == OPT_NAME) name = optarg;
        else if (c == OPT_DURATION) {
            char *end;
            duration = strtod(optarg, &end);
            if (*end || !(duration > 0) || duration > 86400)
                return cli_usage_error("record", "--duration is seconds in (0, 86400], not '%s'", optarg);
        } else if (c == OPT_INTERVAL) {
            char *end;
            interval = strtol(optarg, &end, 10);
            if (*end || interval < 1 || interval > 60000)
                return cli_usage_error("record", "--interval is milliseconds in 1..60000, not '%s'", optarg);
        } else if (c == OPT_REFRESH) {
            char *end;
            refresh = strtol(optarg, &end, 10);
            if (!*optarg || *end || refresh < 0 || refresh > 3600000)
                return cli_usage_error("record", "--refresh is milliseconds in 0..3600000, not '%s'", optarg);
        }
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
    if (target) {
        if (optind < argc)
            return cli_usage_error("record", "--target records a target, not a program ('%s')", argv[optind]);
        cli_record_target_opts ro = {target, elf, name ? name : import, out_set ? out : NULL, duration, interval, refresh};
        return cli_record_target(cli, &ro);
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
    /* the runtime writes here why it could not trace, when it knows (rt/arch/arm) */
    char note[PATH_MAX + 8];
    snprintf(note, sizeof note, "%s.note", absout);
    unlink(note);
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
        if (!pre || setenv("LD_PRELOAD", pre, 1) || setenv("TRAZA_RT_OUT", absout, 1) || setenv("TRAZA_RT_NOTE", note, 1) ||
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
    struct stat nst;
    int told = stat(note, &nst) == 0 && nst.st_size > 0; /* the runtime said why */
    unlink(note);
    if (WIFSIGNALED(status))
        fprintf(stderr, "traza record: %s died of signal %d (%s)%s\n", argv[optind], WTERMSIG(status),
                strsignal(WTERMSIG(status)), have ? "; the dump holds its events until then" : "");
    if (!have && WIFSIGNALED(status)) {
        fprintf(stderr, "traza record: no dump written (the runtime writes one on SIGSEGV, SIGBUS, SIGABRT, "
                        "SIGFPE and SIGILL, not on this signal; --mode stream keeps what was flushed)\n");
        return EXIT_FAIL;
    }
    if (!have) {
        fprintf(stderr, "traza record: %s exited (status %d) without writing %s%s\n", argv[optind],
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out,
                told ? " (the runtime said why, above)" : ": was it compiled with -pg -mfentry or -finstrument-functions?");
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
