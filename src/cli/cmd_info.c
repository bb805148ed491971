/* traza info TRACE [--json] */
#include "cli/cli.h"
#include "cli/info_print.h"

const char cmd_info_usage[] =
    "usage: traza info TRACE [--json]\n"
    "\n"
    "Shows a trace's metadata: format, counts per category, producers, event types,\n"
    "time unit and span, source files and parameters.\n"
    "  --json   one object with name, events, producers, event_types, min_ts, max_ts,\n"
    "           time_unit, categories {punctual, state, link, variable}, sources, params\n";

int cmd_info(traza_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, {NULL, 0, NULL, 0}};
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        int r = cli_common_opt(cli, "info", c);
        if (r == -1) return EXIT_OK;
        if (r <= 0) return EXIT_USAGE;
    }
    if (optind + 1 != argc)
        return cli_usage_error("info", "expected one trace name");
    traza_workspace *ws = cli_ws_existing(cli, argv[optind]);
    if (!ws)
        return EXIT_FAIL;
    traza_err err;
    traza_err_clear(&err);
    traza_trace_info info;
    if (traza_workspace_find(ws, argv[optind], &info, &err) < 0)
        return cli_fail(cli, &err);
    tz_buf b;
    tz_buf_init(&b);
    if (cli->json) {
        cli_info_json(&b, &info);
        tz_buf_putc(&b, '\n');
    } else {
        cli_info_text(&b, &info);
    }
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    traza_trace_info_clear(&info);
    return EXIT_OK;
}
