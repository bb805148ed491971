/* traza query TRACE [filters] [--limit N --offset N] [--desc] [--csv|--json] */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

const char cmd_query_usage[] =
    "usage: traza query TRACE [FILTERS] [--limit N] [--offset N] [--desc] [--csv | --json] [--count]\n"
    "\n"
    "Lists the events that match the filters, in time order.\n"
    "\n" CLI_FILTER_HELP
    "Output:\n"
    "  --limit N        at most N events (default 1000; 0 = all)\n"
    "  --offset N       skip the first N matching events (paging)\n"
    "  --desc           newest first\n"
    "  --csv, --json    machine-readable output (default: a table)\n"
    "  --count          print only the number of matching events\n";

int cmd_query(traza_cli *cli, int argc, char **argv)
{
    enum { O_LIMIT = OPT_FIRST_FREE, O_OFFSET, O_DESC, O_CSV, O_COUNT };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS, CLI_FILTER_LONGOPTS,
        {"limit", required_argument, NULL, O_LIMIT},
        {"offset", required_argument, NULL, O_OFFSET},
        {"desc", no_argument, NULL, O_DESC},
        {"csv", no_argument, NULL, O_CSV},
        {"count", no_argument, NULL, O_COUNT},
        {NULL, 0, NULL, 0},
    };
    cli_filter cf;
    cli_filter_init(&cf);
    cf.f.limit = 1000;
    int csv = 0, count_only = 0, c, rc = EXIT_OK;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        int r = cli_filter_opt(&cf, "query", c, optarg);
        if (r < 0) { rc = EXIT_USAGE; goto out; }
        if (r) continue;
        switch (c) {
        case O_LIMIT:
        case O_OFFSET: {
            char *end;
            long long v = strtoll(optarg, &end, 10);
            if (*end || v < 0) { rc = cli_usage_error("query", "--%s expects a number >= 0, got '%s'", c == O_LIMIT ? "limit" : "offset", optarg); goto out; }
            if (c == O_LIMIT) cf.f.limit = v; else cf.f.offset = v;
            break;
        }
        case O_DESC: cf.f.order = TRAZA_ORDER_TIME_DESC; break;
        case O_CSV: csv = 1; break;
        case O_COUNT: count_only = 1; break;
        default: {
            int k = cli_common_opt(cli, "query", c);
            if (k == -1) goto out;
            if (k <= 0) { rc = EXIT_USAGE; goto out; }
        }
        }
    }
    if (optind + 1 != argc) { rc = cli_usage_error("query", "expected one trace name"); goto out; }
    traza_trace *t = cli_trace(cli, argv[optind], TRAZA_OPEN_READ);
    if (!t) { rc = EXIT_FAIL; goto out; }
    if ((rc = cli_filter_resolve(cli, &cf, t)) != EXIT_OK) {
        traza_trace_close(t);
        goto out;
    }
    traza_err err;
    traza_err_clear(&err);
    if (count_only) {
        int64_t n = traza_count(t, &cf.f, &err);
        if (n < 0)
            rc = cli_fail(cli, &err);
        else if (cli->json)
            printf("{\"count\":%lld}\n", (long long)n);
        else
            printf("%lld\n", (long long)n);
        traza_trace_close(t);
        goto out;
    }
    cf.f.with_params = 1;
    traza_cursor *cur = traza_query(t, &cf.f, &err);
    if (!cur) {
        rc = cli_fail(cli, &err);
        traza_trace_close(t);
        goto out;
    }
    tz_buf b;
    tz_buf_init(&b);
    traza_text_format fmt = cli->json ? TRAZA_TEXT_JSON : csv ? TRAZA_TEXT_CSV : TRAZA_TEXT_TABLE;
    traza_event_text *w = traza_event_text_open(t, fmt, tz_buf_sink, &b);
    int k = !w || traza_event_text_header(w) != 0 ? traza_err_set(&err, TRAZA_E_NOMEM, "out of memory") : 1;
    const traza_event *ev;
    while (k > 0 && (k = traza_cursor_next(cur, &ev, &err)) > 0) {
        if (traza_event_text_row(w, ev) != 0) {
            k = traza_err_set(&err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        if (b.len > (1u << 16)) {
            fwrite(b.s, 1, b.len, stdout);
            tz_buf_reset(&b);
        }
    }
    if (k < 0) {
        rc = cli_fail(cli, &err);
    } else {
        traza_event_text_footer(w);
        fwrite(b.s ? b.s : "", 1, b.len, stdout);
        if (fflush(stdout) != 0)
            rc = EXIT_FAIL;
    }
    traza_event_text_close(w);
    tz_buf_free(&b);
    traza_cursor_free(cur);
    traza_trace_close(t);
out:
    cli_filter_free(&cf);
    return rc;
}
