/* traza serve [-w WS] [--listen HOST:PORT] [--grammar FILE.tzg]... */
#include "cli/cli.h"
#include "server/server.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

const char cmd_serve_usage[] =
    "usage: traza serve [-w WORKSPACE] [--listen HOST:PORT] [--port PORT] [--grammar FILE.tzg]...\n"
    "                   [--port-file FILE] [--max-connections N] [--max-per-client N]\n"
    "\n"
    "Serves the web UI and its JSON API (doc/api.md) over the workspace until SIGINT or\n"
    "SIGTERM (requests in progress are cancelled: it stops within a second). The UI is\n"
    "compiled into the binary: it needs no network and no files. Requests are answered\n"
    "concurrently; a request must arrive within 10 s of its connection (or of the\n"
    "previous answer), and a connection silent for 15 s is closed.\n"
    "  --listen HOST:PORT  address to bind (default 127.0.0.1:8080; port 0 = any free port)\n"
    "  --port PORT         the port to bind (on --listen's host, default loopback;\n"
    "                      over --listen's port)\n"
    "  --grammar FILE      a .tzg grammar to show in the grammar views (repeatable; the\n"
    "                      *.tzg files of the workspace directory are listed too)\n"
    "  --port-file FILE    write the port actually bound to FILE (for scripts)\n"
    "  --max-connections N open connections in all (default 1000; lowered to what the\n"
    "                      process's descriptor limit allows)\n"
    "  --max-per-client N  open connections per client address (default 250)\n";

static int parse_count(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end || v < 1 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

/* Raises the descriptor limit towards the connection limit (the hard limit caps it). */
static void raise_nofile(int want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)want + 128)
        return;
    rlim_t n = (rlim_t)want + 128;
    rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && n > rl.rlim_max ? rl.rlim_max : n;
    setrlimit(RLIMIT_NOFILE, &rl);
}

static int parse_listen(const char *s, char *host, size_t hsize, int *port)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || (size_t)(colon - s) >= hsize)
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = 0;
    char *end;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    if (errno || !colon[1] || *end || p < 0 || p > 65535)
        return -1;
    *port = (int)p;
    return 0;
}

int cmd_serve(traza_cli *cli, int argc, char **argv)
{
    enum { O_LISTEN = OPT_FIRST_FREE, O_PORT, O_GRAMMAR, O_PORTFILE, O_MAXCONN, O_PERCLIENT };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"listen", required_argument, NULL, O_LISTEN},
        {"port", required_argument, NULL, O_PORT},
        {"grammar", required_argument, NULL, O_GRAMMAR},
        {"port-file", required_argument, NULL, O_PORTFILE},
        {"max-connections", required_argument, NULL, O_MAXCONN},
        {"max-per-client", required_argument, NULL, O_PERCLIENT},
        {NULL, 0, NULL, 0},
    };
    char host[256] = "127.0.0.1";
    int port = 8080, port_opt = -1;
    const char *grammars[64];
    size_t ng = 0;
    const char *port_file = NULL;
    tz_server_opts so;
    tz_server_opts_default(&so);
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        if (c == O_LISTEN) {
            if (parse_listen(optarg, host, sizeof host, &port) < 0)
                return cli_usage_error("serve", "--listen expects HOST:PORT (e.g. 127.0.0.1:8080), got '%s'", optarg);
            continue;
        }
        if (c == O_PORT) {
            /* its own option: else getopt would take "--port" for "--port-file" */
            char *end;
            errno = 0;
            long p = strtol(optarg, &end, 10);
            if (errno || !*optarg || *end || p < 0 || p > 65535)
                return cli_usage_error("serve", "--port expects a number from 0 to 65535, got '%s'", optarg);
            port_opt = (int)p;
            continue;
        }
        if (c == O_GRAMMAR) {
            if (ng >= sizeof grammars / sizeof grammars[0])
                return cli_usage_error("serve", "at most 64 --grammar files");
            if (access(optarg, R_OK) != 0)
                return cli_usage_error("serve", "cannot read grammar file '%s'", optarg);
            grammars[ng++] = optarg;
            continue;
        }
        if (c == O_PORTFILE) { port_file = optarg; continue; }
        if (c == O_MAXCONN || c == O_PERCLIENT) {
            if (parse_count(optarg, c == O_MAXCONN ? &so.max_connections : &so.max_per_client) < 0)
                return cli_usage_error("serve", "--%s expects a count from 1 to 1000000, got '%s'",
                                       c == O_MAXCONN ? "max-connections" : "max-per-client", optarg);
            continue;
        }
        int k = cli_common_opt(cli, "serve", c);
        if (k == -1) return EXIT_OK;
        if (k <= 0) return EXIT_USAGE;
    }
    if (optind != argc)
        return cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
    if (port_opt >= 0)
        port = port_opt;
    traza_workspace *ws = cli_ws_existing(cli, NULL);
    if (!ws)
        return EXIT_FAIL;
    /* Block the stop signals before the server thread starts so that only this
     * thread receives them (sigwait below). */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    traza_err err;
    traza_err_clear(&err);
    cli_registry(cli); /* the tools /api/tools offers: built-in and plugins */
    tz_api *api = tz_api_new(ws, grammars, ng, &err);
    if (!api)
        return cli_fail(cli, &err);
    raise_nofile(so.max_connections);
    tz_server *s = tz_server_start(api, host, port, &so, &err);
    if (!s) {
        tz_api_free(api);
        return cli_fail(cli, &err);
    }
    int bound = tz_server_port(s);
    if (port_file) {
        char text[16];
        int n = snprintf(text, sizeof text, "%d\n", bound);
        if (cli_write_file(port_file, text, (size_t)n) != EXIT_OK) {
            if (tz_server_stop(s, 1000) == 0)
                tz_api_free(api);
            return EXIT_FAIL;
        }
    }
    if (cli->json) {
        char url[300];
        snprintf(url, sizeof url, "http://%s:%d/", host, bound);
        tz_buf b;
        tz_buf_init(&b);
        tz_buf_puts(&b, "{\"url\":");
        tz_json_str(&b, url);
        tz_buf_printf(&b, ",\"port\":%d}\n", bound);
        fputs(b.s ? b.s : "", stdout);
        tz_buf_free(&b);
    } else
        printf("traza: serving %s on http://%s:%d/ (Ctrl-C stops)\n", traza_workspace_location(ws), host, bound);
    fflush(stdout);
    int sig = 0;
    sigwait(&set, &sig);
    const char *name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    /* requests in progress stop at their next budget check; one that does not within
     * the second is abandoned with the process */
    if (tz_server_stop(s, 800) < 0) {
        if (!cli->quiet && !cli->json)
            printf("traza: stopped (%s; a request still running was abandoned)\n", name);
        fflush(stdout);
        _exit(EXIT_OK);
    }
    tz_api_free(api);
    if (!cli->quiet && !cli->json)
        printf("traza: stopped (%s)\n", name);
    return EXIT_OK;
}
