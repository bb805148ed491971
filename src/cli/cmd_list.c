/* traza list [--where EXPR]... [--json] */
#include "cli/cli.h"
#include "cli/info_print.h"
#include "cli/meta_cli.h"

const char cmd_list_usage[] =
    "usage: traza list [--where EXPR]... [--json]\n"
    "\n"
    "Lists the traces of the workspace: id, name, format, events, time span.\n"
    "  --where EXPR  only the traces whose metadata (see 'traza meta'; also name,\n"
    "                format, alias) matches EXPR: KEY=VALUE, KEY!=VALUE, KEY~GLOB or\n"
    "                KEY!~GLOB (a shell glob: * ? [..]). A trace without KEY matches\n"
    "                != and !~ only. Repeated: every one must match.\n"
    "  --json        an array of the objects 'traza info --json' prints\n";

int cmd_list(traza_cli *cli, int argc, char **argv)
{
    enum { O_WHERE = OPT_FIRST_FREE };
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, {"where", required_argument, NULL, O_WHERE}, {NULL, 0, NULL, 0}};
    cli_meta_where where[32];
    size_t nwhere = 0;
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        if (c == O_WHERE) {
            if (nwhere == sizeof where / sizeof *where)
                return cli_usage_error("list", "at most %zu --where options", sizeof where / sizeof *where);
            int r = cli_meta_where_parse("list", optarg, &where[nwhere++]);
            if (r)
                return r;
            continue;
        }
        int r = cli_common_opt(cli, "list", c);
        if (r == -1) return EXIT_OK;
        if (r <= 0) return EXIT_USAGE;
    }
    if (optind < argc)
        return cli_usage_error("list", "unexpected argument '%s'", argv[optind]);
    const char *loc = cli_ws_location(cli);
    if (!loc)
        return EXIT_FAIL;
    if (!traza_workspace_exists(loc)) {
        if (cli->json)
            fputs("[]\n", stdout);
        else
            printf("no workspace at %s (add a trace with 'traza import FILE')\n", loc);
        return EXIT_OK;
    }
    traza_workspace *ws = cli_ws(cli);
    if (!ws)
        return EXIT_FAIL;
    traza_err err;
    traza_err_clear(&err);
    traza_trace_info *all;
    size_t n;
    if (traza_workspace_list(ws, &all, &n, &err) < 0)
        return cli_fail(cli, &err);
    size_t total = n, kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cli_meta_matches(&all[i], where, nwhere)) {
            traza_trace_info_clear(&all[i]);
            continue;
        }
        all[kept++] = all[i];
    }
    n = kept;
    tz_buf b;
    tz_buf_init(&b);
    if (cli->json) {
        tz_buf_putc(&b, '[');
        for (size_t i = 0; i < n; i++) {
            if (i)
                tz_buf_putc(&b, ',');
            cli_info_json(&b, &all[i]);
        }
        tz_buf_puts(&b, "]\n");
    } else if (n == 0 && nwhere) {
        tz_buf_printf(&b, "no trace of the %zu in %s matches\n", total, traza_workspace_location(ws));
    } else if (n == 0) {
        tz_buf_printf(&b, "no traces in %s (add one with 'traza import FILE')\n", traza_workspace_location(ws));
    } else {
        tz_buf_printf(&b, "%4s  %-28s %-9s %12s %10s  %s\n", "id", "name", "format", "events", "producers", "span");
        for (size_t i = 0; i < n; i++) {
            char span[64];
            traza_trace_time_format(&all[i], all[i].max_ts - all[i].min_ts, 0, span, sizeof span);
            tz_buf_printf(&b, "%4lld  %-28s %-9s %12lld %10lld  %s\n", (long long)all[i].id, all[i].name,
                          all[i].format ? all[i].format : "", (long long)all[i].events, (long long)all[i].producers, span);
        }
    }
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    traza_trace_info_array_free(all, n);
    return EXIT_OK;
}
