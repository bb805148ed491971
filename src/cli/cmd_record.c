/* traza record [-o DUMP] [--mode ring|stream] [--buffer SIZE] [--import NAME] -- PROGRAM ARGS
 * traza record --target gdb://HOST:PORT --elf FW.elf [--name T] (a bare-metal target's ring) */
#include "cli/cli.h"
#include "traza/live.h"
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
    "       traza record --target gdb://HOST:PORT --elf FW.elf [--name T] [--duration S] [--interval MS] [-o DUMP]\n"
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

static volatile sig_atomic_t live_stop;
static void on_sigint(int sig)
{
    (void)sig;
    live_stop = 1;
}

/* gdb://HOST:PORT -> host, port (in buf) */
static int parse_target(const char *url, char *buf, size_t size, const char **host, const char **port)
{
    if (strncmp(url, "gdb://", 6) != 0 || strlen(url + 6) >= size)
        return -1;
    snprintf(buf, size, "%s", url + 6);
    char *colon = strrchr(buf, ':');
    if (!colon || colon == buf || !colon[1])
        return -1;
    *colon = '\0';
    *host = buf;
    *port = colon + 1;
    return 0;
}

static int import_dump(traza_cli *cli, const char *path, const char *name, traza_trace_info *info)
{
    traza_workspace *ws = cli_ws(cli);
    if (!ws)
        return -1;
    traza_err err;
    traza_err_clear(&err);
    traza_import_opts o = {0};
    o.format = "rtdump";
    o.name = name;
    const char *paths[1] = {path};
    if (traza_import(ws, paths, 1, &o, info, &err) < 0) {
        cli_fail(cli, &err);
        return -1;
    }
    return 0;
}

static int record_target(traza_cli *cli, const char *target, const char *elf, const char *name, const char *out,
                         double duration, long interval)
{
    char buf[512];
    traza_live_opts o = {0};
    if (parse_target(target, buf, sizeof buf, &o.host, &o.port) < 0)
        return cli_usage_error("record", "--target is gdb://HOST:PORT, not '%s'", target);
    if (!elf)
        return cli_usage_error("record", "--target needs --elf FW.elf (the firmware the target runs)");
    o.program = elf;
    o.interval_ms = (int)interval;
    o.duration_ms = (int)(duration * 1000);
    o.stop = &live_stop;
    o.timeout_ms = 5000;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, &old);
    unsigned char *dump = NULL;
    size_t dumplen = 0;
    traza_live_stats st;
    traza_err err;
    traza_err_clear(&err);
    int rc = traza_live_record(&o, &dump, &dumplen, &st, &err);
    sigaction(SIGINT, &old, NULL);
    if (rc < 0) {
        free(dump);
        return cli_fail(cli, &err);
    }
    /* the dump file, then the import (which reads it) */
    char tmpl[] = "/tmp/traza-live-XXXXXX";
    int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : mkstemp(tmpl);
    const char *path = out ? out : tmpl;
    int wrc = fd < 0 ? -1 : tz_write_all(fd, dump, dumplen);
    if (fd >= 0 && close(fd) < 0)
        wrc = -1;
    if (wrc < 0) {
        fprintf(stderr, "traza record: %s: %s\n", path, strerror(errno));
        free(dump);
        return EXIT_FAIL;
    }
    free(dump);
    if (!cli->quiet)
        fprintf(stderr, "traza record: %s: %llu polls, %llu bytes of events, target events %llu, "
                        "%llu blocks overwritten before they were read%s\n",
                target, (unsigned long long)st.polls, (unsigned long long)st.bytes, (unsigned long long)st.events,
                (unsigned long long)st.lost_blocks,
                st.target_exited ? " (the target exited: what it wrote after the last poll is not read)" : "");
    if (!name) {
        const char *b = strrchr(elf, '/');
        name = b ? b + 1 : elf;
    }
    traza_trace_info info;
    rc = import_dump(cli, path, name, &info);
    if (!out)
        unlink(tmpl);
    if (rc < 0)
        return EXIT_FAIL;
    if (cli->json) {
        tz_buf b;
        tz_buf_init(&b);
        tz_buf_puts(&b, "{\"trace\":");
        tz_json_str(&b, info.name);
        tz_buf_printf(&b, ",\"events\":%lld,\"target_events\":%llu,\"overwritten_blocks\":%llu,\"polls\":%llu}\n",
                      (long long)info.events, (unsigned long long)st.events, (unsigned long long)st.lost_blocks,
                      (unsigned long long)st.polls);
        fputs(b.s ? b.s : "", stdout);
        tz_buf_free(&b);
    } else if (!cli->quiet)
        printf("imported '%s': %lld events\n", info.name, (long long)info.events);
    traza_trace_info_clear(&info);
    return EXIT_OK;
}

int cmd_record(traza_cli *cli, int argc, char **argv)
{
    enum { OPT_MODE = OPT_FIRST_FREE, OPT_BUFFER, OPT_IMPORT, OPT_TARGET, OPT_ELF, OPT_NAME, OPT_DURATION,
           OPT_INTERVAL };
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
                                             {NULL, 0, NULL, 0}};
    const char *out = "traza-rt.tzr", *mode = "ring", *buffer = NULL, *import = NULL;
    const char *target = NULL, *elf = NULL, *name = NULL;
    int out_set = 0;
    double duration = 0;
    long interval = 20;
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
        return record_target(cli, target, elf, name ? name : import, out_set ? out : NULL, duration, interval);
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
