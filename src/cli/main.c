/* traza: the command-line front end. Dispatches to one file per subcommand. */
#include "cli/cli.h"
#include "server/server.h"

#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const cli_command commands[] = {
#define CMD(n, s) {#n, s, cmd_##n, cmd_##n##_usage},
#include "cli/commands.def"
#undef CMD
};
static const size_t ncommands = sizeof commands / sizeof commands[0];

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < ncommands; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int cli_print_usage(const char *cmd)
{
    const cli_command *c = find_command(cmd);
    if (!c)
        return 0;
    fputs(c->usage, stdout);
    return 1;
}

/* `traza --version`: the version, then each optional feature, "+name" when this build
 * has it and "-name" when it was made without the library it needs. */
static void print_version(void)
{
    printf("traza %s\nfeatures:", traza_version());
    traza_feature f;
    for (size_t i = 0; traza_feature_get(i, &f) == 0; i++)
        printf(" %c%s", f.built ? '+' : '-', f.name);
    tz_server_feature(&f);
    printf(" %c%s\n", f.built ? '+' : '-', f.name);
}

static void main_usage(FILE *out)
{
    fprintf(out,
            "usage: traza [-w WORKSPACE] COMMAND [ARGS]\n"
            "\n"
            "traza records, imports, stores, compresses, analyses and shows execution traces\n"
            "of embedded systems.\n"
            "\n"
            "Commands:\n");
    for (size_t i = 0; i < ncommands; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "Global options:\n"
            "  -w, --workspace DIR   the workspace (default: $TRAZA_WORKSPACE, else\n"
            "                        $XDG_DATA_HOME/traza, else ~/.local/share/traza)\n"
            "  -q, --quiet           no progress output\n"
            "  -v, --verbose         more messages\n"
            "  --version             print the version\n"
            "\n"
            "'traza help COMMAND' or 'traza COMMAND --help' shows a command's options.\n"
            "Exit status: 0 success, 1 failure, 2 usage error.\n");
}

static void log_to_stderr(void *user, traza_log_level level, const char *msg)
{
    cli_progress_clear(user);
    static const char *const names[] = {"debug", "info", "warning", "error"};
    fprintf(stderr, "traza: %s: %s\n", names[level], msg);
}

/* In the commands whose work consults the context's stop (imports, generation,
 * analyses) or the filter's (queries: the filter builder gives them this one), the
 * first SIGINT asks that work to stop: it fails with "cancelled" and
 * leaves the workspace unchanged; the handler resets itself, so a second SIGINT ends
 * the process at once. The other commands keep SIGINT's default (`serve` and
 * `record` handle it themselves). */
static int stops_on_sigint(const char *cmd)
{
    static const char *const polled[] = {"import",    "gen",   "run",    "anomaly", "correlate", "aggregate", "seqsearch",
                                         "query",     "stats", "export", "density", "filter"};
    for (size_t i = 0; i < sizeof polled / sizeof polled[0]; i++)
        if (strcmp(cmd, polled[i]) == 0)
            return 1;
    return 0;
}

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int sigint_stop(void *ctx, int stage)
{
    (void)ctx;
    (void)stage;
    return interrupted;
}

static void stop_on_sigint(traza_cli *cli)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = (int)SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    cli->stop = (traza_stop){sigint_stop, NULL};
    traza_ctx_set_stop(cli->ctx, &cli->stop);
}

/* A command runs for milliseconds to seconds: its heap grows in steps of 1 MiB and is
 * not given back, and blocks under 1 MiB come from it, not from mmap. An ES
 * decompression makes ten brk, mmap and munmap calls for its tables otherwise (a few
 * microseconds each on a VM); pages are still only taken when touched.
 * `serve` runs for days and keeps glibc's defaults, which give memory back. */
static void tune_malloc(void)
{
    mallopt(M_TOP_PAD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
}

int main(int argc, char **argv)
{
    traza_cli cli;
    memset(&cli, 0, sizeof cli);
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "-w") == 0 || strcmp(a, "--workspace") == 0) && i + 1 < argc) {
            cli.ws_path = argv[++i];
        } else if (strncmp(a, "--workspace=", 12) == 0) {
            cli.ws_path = a + 12;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            cli.quiet = 1;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            cli.verbose = 1;
        } else if (strcmp(a, "--version") == 0) {
            print_version();
            return EXIT_OK;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            main_usage(stdout);
            return EXIT_OK;
        } else {
            static const char *const global[] = {"workspace", "quiet", "verbose", "version", "help"};
            cli_near near;
            cli_near_init(&near, a + strspn(a, "-"));
            for (size_t k = 0; k < sizeof global / sizeof global[0]; k++)
                cli_near_add(&near, global[k]);
            fprintf(stderr, "traza: unknown option '%s'%s%s%s (see 'traza --help')\n", a, near.best ? "; did you mean '--" : "",
                    near.best ? near.best : "", near.best ? "'?" : "");
            return EXIT_USAGE;
        }
    }
    if (i >= argc) {
        main_usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[i];
    if (strcmp(name, "help") == 0) {
        if (i + 1 < argc) {
            if (!cli_print_usage(argv[i + 1])) {
                fprintf(stderr, "traza: no command '%s' (see 'traza help')\n", argv[i + 1]);
                return EXIT_USAGE;
            }
        } else {
            main_usage(stdout);
        }
        return EXIT_OK;
    }
    const cli_command *c = find_command(name);
    if (!c) {
        fprintf(stderr, "traza: no command '%s' (see 'traza help')\n", name);
        return EXIT_USAGE;
    }
    if (strcmp(name, "serve") != 0)
        tune_malloc();
    traza_err err;
    traza_err_clear(&err);
    cli.ctx = traza_ctx_new(&err);
    if (!cli.ctx) {
        fprintf(stderr, "traza: %s\n", err.msg);
        return EXIT_FAIL;
    }
    traza_ctx_set_logger(cli.ctx, log_to_stderr, &cli, cli.verbose ? TRAZA_LOG_DEBUG : TRAZA_LOG_WARN);
    cli.progress_tty = !cli.quiet && isatty(2);
    if (cli.progress_tty)
        traza_ctx_set_progress(cli.ctx, cli_progress, &cli);
    if (stops_on_sigint(name))
        stop_on_sigint(&cli);
    optind = 1;
    int rc = c->run(&cli, argc - i, argv + i);
    cli_progress_clear(&cli);
    if (cli.ws)
        traza_workspace_close(cli.ws);
    traza_ctx_free(cli.ctx);
    return rc;
}
