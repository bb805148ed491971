/* traza serve [-w WS] [--listen HOST:PORT] [--grammar FILE.tzg]... */
#include "cli/cli.h"
#include "server/server.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cmd_serve_usage[] =
    "usage: traza serve [-w WORKSPACE] [--listen HOST:PORT] [--grammar FILE.tzg]... [--port-file FILE]\n"
    "\n"
    "Serves the web UI and its JSON API (doc/api.md) over the workspace until SIGINT or\n"
    "SIGTERM. The UI is compiled into the binary: it needs no network and no files.\n"
    "  --listen HOST:PORT  address to bind (default 127.0.0.1:8080; port 0 = any free port)\n"
    "  --grammar FILE      a .tzg grammar to show in the grammar views (repeatable; the\n"
    "                      *.tzg files of the workspace directory are listed too)\n"
    "  --port-file FILE    write the port actually bound to FILE (for scripts)\n";

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
    enum { O_LISTEN = OPT_FIRST_FREE, O_GRAMMAR, O_PORTFILE };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"listen", required_argument, NULL, O_LISTEN},
        {"grammar", required_argument, NULL, O_GRAMMAR},
        {"port-file", required_argument, NULL, O_PORTFILE},
        {NULL, 0, NULL, 0},
    };
    char host[256] = "127.0.0.1";
    int port = 8080;
    const char *grammars[64];
    size_t ng = 0;
    const char *port_file = NULL;
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        if (c == O_LISTEN) {
            if (parse_listen(optarg, host, sizeof host, &port) < 0)
                return cli_usage_error("serve", "--listen expects HOST:PORT (e.g. 127.0.0.1:8080), got '%s'", optarg);
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
        int k = cli_common_opt(cli, "serve", c);
        if (k == -1) return EXIT_OK;
        if (k <= 0) return EXIT_USAGE;
    }
    if (optind != argc)
        return cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
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
    tz_api *api = tz_api_new(ws, grammars, ng, &err);
    if (!api)
        return cli_fail(cli, &err);
    tz_server *s = tz_server_start(api, host, port, &err);
    if (!s) {
        tz_api_free(api);
        return cli_fail(cli, &err);
    }
    int bound = tz_server_port(s);
    if (port_file) {
        FILE *f = fopen(port_file, "w");
        if (!f || fprintf(f, "%d\n", bound) < 0 || fclose(f) != 0) {
            fprintf(stderr, "traza: cannot write --port-file %s\n", port_file);
            tz_server_stop(s);
            tz_api_free(api);
            return EXIT_FAIL;
        }
    }
    if (cli->json)
        printf("{\"url\":\"http://%s:%d/\",\"port\":%d}\n", host, bound, bound);
    else
        printf("traza: serving %s on http://%s:%d/ (Ctrl-C stops)\n", traza_workspace_location(ws), host, bound);
    fflush(stdout);
    int sig = 0;
    sigwait(&set, &sig);
    tz_server_stop(s);
    tz_api_free(api);
    if (!cli->quiet && !cli->json)
        printf("traza: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return EXIT_OK;
}
