/* traza info TRACE [--all] [--json] */
#include "cli/cli.h"
#include "cli/info_detail.h"
#include "cli/info_print.h"

const char cmd_info_usage[] =
    "usage: traza info TRACE [--all] [--json]\n"
    "\n"
    "Shows a trace's metadata: format, counts per category, time unit and span, source\n"
    "files and parameters, what it takes in the workspace; its event types with their\n"
    "event counts (most first) and its producers as a tree, each with its path and its\n"
    "own event count.\n"
    "  --all    list every event type and producer (else the first 20 types and 30\n"
    "           producers, and how many more there are)\n"
    "  --json   one object with name, events, producers, event_types, min_ts, max_ts,\n"
    "           time_unit, categories {punctual, state, link, variable}, sources, params,\n"
    "           store_bytes (-1 where the backend does not say), store_packed,\n"
    "           type_list [{name, category, count}], more_types, producer_list [{name,\n"
    "           path, depth, count}] in tree order, more_producers\n";

/* "store:  178.5 MB, 7.6 bytes an event (events packed)": what the trace takes (a backend
 * that does not say: nothing). */
static void storage_text(tz_buf *b, const traza_trace_storage *s, int64_t events)
{
    if (s->bytes < 0)
        return;
    tz_buf_printf(b, "store:       %.1f MB", (double)s->bytes / 1e6);
    if (events > 0)
        tz_buf_printf(b, ", %.1f bytes an event", (double)s->bytes / (double)events);
    tz_buf_puts(b, s->packed ? " (events packed)\n" : " (events in rows)\n");
}

int cmd_info(traza_cli *cli, int argc, char **argv)
{
    enum { O_ALL = OPT_FIRST_FREE };
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, {"all", no_argument, NULL, O_ALL}, {NULL, 0, NULL, 0}};
    int c, all = 0;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        if (c == O_ALL) {
            all = 1;
            continue;
        }
        int r = cli_common_opt(cli, "info", c);
        if (r == -1) return EXIT_OK;
        if (r <= 0) return EXIT_USAGE;
    }
    if (optind + 1 != argc)
        return cli_usage_error("info", "expected one trace name");
    traza_trace *t = cli_trace(cli, argv[optind], TRAZA_OPEN_READ);
    if (!t)
        return EXIT_FAIL;
    const traza_trace_info *info = traza_trace_info_of(t);
    traza_err err;
    traza_err_clear(&err);
    traza_stats st;
    if (traza_stats_compute(t, NULL, &st, &err) < 0) {
        traza_trace_close(t);
        return cli_fail(cli, &err);
    }
    traza_trace_storage sto;
    if (traza_trace_storage_of(t, &sto, &err) < 0) {
        traza_stats_free(&st);
        traza_trace_close(t);
        return cli_fail(cli, &err);
    }
    tz_buf b;
    tz_buf_init(&b);
    int bad;
    if (cli->json) {
        cli_info_json_members(&b, info);
        tz_buf_printf(&b, ",\"store_bytes\":%lld,\"store_packed\":%s", (long long)sto.bytes, sto.packed ? "true" : "false");
        bad = cli_info_details(&b, t, &st, all, 1);
        tz_buf_puts(&b, "}\n");
    } else {
        cli_info_text(&b, info);
        storage_text(&b, &sto, info->events);
        bad = cli_info_details(&b, t, &st, all, 0);
    }
    int rc = EXIT_OK;
    if (bad || b.oom) {
        fprintf(stderr, "traza: out of memory\n");
        rc = EXIT_FAIL;
    } else {
        fputs(b.s ? b.s : "", stdout);
    }
    tz_buf_free(&b);
    traza_stats_free(&st);
    traza_trace_close(t);
    return rc;
}
