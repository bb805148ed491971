/* traza stats TRACE [filters] [--svg FILE] [--by type|producer] [--json] */
#include "cli/cli.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

const char cmd_stats_usage[] =
    "usage: traza stats TRACE [FILTERS] [--svg FILE] [--by type|producer] [--json]\n"
    "\n"
    "Counts events per event type and per producer; for states, links and variables\n"
    "also their total duration, clipped to the --from/--to window when one is given.\n"
    "\n" CLI_FILTER_HELP
    "Output:\n"
    "  --svg FILE       a pie chart of the counts (--by type, the default, or producer)\n"
    "  --json           {\"total\", \"from\", \"to\", \"types\": [...], \"producers\": [...]}\n";

typedef struct row_ref {
    const traza_stats_row *row;
    const char *name;
} row_ref;

static int by_count_desc(const void *a, const void *b)
{
    const row_ref *x = a, *y = b;
    if (x->row->count != y->row->count)
        return x->row->count < y->row->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

int cmd_stats(traza_cli *cli, int argc, char **argv)
{
    enum { O_SVG = OPT_FIRST_FREE, O_BY };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS, CLI_FILTER_LONGOPTS,
        {"svg", required_argument, NULL, O_SVG},
        {"by", required_argument, NULL, O_BY},
        {NULL, 0, NULL, 0},
    };
    cli_filter cf;
    cli_filter_init(&cf);
    const char *svg = NULL;
    int by_producer = 0, c, rc = EXIT_OK;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        int r = cli_filter_opt(&cf, "stats", c, optarg);
        if (r < 0) { rc = EXIT_USAGE; goto out; }
        if (r) continue;
        if (c == O_SVG) { svg = optarg; continue; }
        if (c == O_BY) {
            if (strcmp(optarg, "type") && strcmp(optarg, "producer")) { rc = cli_usage_error("stats", "--by expects type or producer"); goto out; }
            by_producer = strcmp(optarg, "producer") == 0;
            continue;
        }
        int k = cli_common_opt(cli, "stats", c);
        if (k == -1) goto out;
        if (k <= 0) { rc = EXIT_USAGE; goto out; }
    }
    if (optind + 1 != argc) { rc = cli_usage_error("stats", "expected one trace name"); goto out; }
    traza_trace *t = cli_trace(cli, argv[optind], TRAZA_OPEN_READ);
    if (!t) { rc = EXIT_FAIL; goto out; }
    if ((rc = cli_filter_resolve(cli, &cf, t)) != EXIT_OK) { traza_trace_close(t); goto out; }
    traza_err err;
    traza_err_clear(&err);
    traza_stats st;
    if (traza_stats_compute(t, &cf.f, &st, &err) < 0) {
        rc = cli_fail(cli, &err);
        traza_trace_close(t);
        goto out;
    }
    row_ref *types = calloc(st.ntypes + 1, sizeof *types), *prods = calloc(st.nproducers + 1, sizeof *prods);
    char (*paths)[512] = calloc(st.nproducers + 1, sizeof *paths);
    if (!types || !prods || !paths) { rc = EXIT_FAIL; goto done; }
    for (size_t i = 0; i < st.ntypes; i++) {
        types[i].row = &st.types[i];
        types[i].name = traza_trace_event_type(t, (int32_t)i)->name;
    }
    for (size_t i = 0; i < st.nproducers; i++) {
        prods[i].row = &st.producers[i];
        prods[i].name = traza_trace_producer_path(t, (int32_t)i, paths[i], sizeof paths[i]);
    }
    qsort(types, st.ntypes, sizeof *types, by_count_desc);
    qsort(prods, st.nproducers, sizeof *prods, by_count_desc);
    tz_buf b;
    tz_buf_init(&b);
    if (cli->json) {
        tz_buf_printf(&b, "{\"total\":%lld,\"from\":%lld,\"to\":%lld,\"types\":[", (long long)st.total, (long long)st.from, (long long)st.to);
        int first = 1;
        for (size_t i = 0; i < st.ntypes; i++) {
            if (!types[i].row->count) continue;
            tz_buf_puts(&b, first ? "{\"name\":" : ",{\"name\":");
            first = 0;
            tz_json_str(&b, types[i].name);
            tz_buf_printf(&b, ",\"category\":\"%s\",\"count\":%lld,\"duration\":%lld}",
                          traza_category_name(traza_trace_event_type(t, types[i].row->id)->category), (long long)types[i].row->count,
                          (long long)types[i].row->duration);
        }
        tz_buf_puts(&b, "],\"producers\":[");
        first = 1;
        for (size_t i = 0; i < st.nproducers; i++) {
            if (!prods[i].row->count) continue;
            tz_buf_puts(&b, first ? "{\"name\":" : ",{\"name\":");
            first = 0;
            tz_json_str(&b, prods[i].name);
            tz_buf_printf(&b, ",\"count\":%lld,\"duration\":%lld}", (long long)prods[i].row->count, (long long)prods[i].row->duration);
        }
        tz_buf_puts(&b, "]}\n");
    } else {
        const traza_trace_info *info = traza_trace_info_of(t);
        char d[64];
        tz_buf_printf(&b, "%lld events\n\n%-32s %-9s %12s %7s %16s\n", (long long)st.total, "event type", "category", "count", "share", "duration");
        for (size_t i = 0; i < st.ntypes; i++) {
            if (!types[i].row->count) continue;
            const traza_event_type *ty = traza_trace_event_type(t, types[i].row->id);
            tz_buf_printf(&b, "%-32s %-9s %12lld %6.2f%% %16s\n", types[i].name, traza_category_name(ty->category), (long long)types[i].row->count,
                          100.0 * (double)types[i].row->count / (double)(st.total ? st.total : 1),
                          ty->category == TRAZA_PUNCTUAL ? "" : traza_trace_time_format(info, types[i].row->duration, 0, d, sizeof d));
        }
        tz_buf_printf(&b, "\n%-42s %12s %7s %16s\n", "producer", "count", "share", "duration");
        for (size_t i = 0; i < st.nproducers; i++) {
            if (!prods[i].row->count) continue;
            tz_buf_printf(&b, "%-42s %12lld %6.2f%% %16s\n", prods[i].name, (long long)prods[i].row->count,
                          100.0 * (double)prods[i].row->count / (double)(st.total ? st.total : 1),
                          traza_trace_time_format(info, prods[i].row->duration, 0, d, sizeof d));
        }
    }
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    if (svg) {
        size_t n = by_producer ? st.nproducers : st.ntypes;
        row_ref *rows = by_producer ? prods : types;
        traza_chart_item *items = calloc(n + 1, sizeof *items);
        char *doc = NULL;
        if (items) {
            for (size_t i = 0; i < n; i++) {
                items[i].label = rows[i].name;
                items[i].value = (double)rows[i].row->count;
            }
            char title[600];
            snprintf(title, sizeof title, "%s: events per %s", traza_trace_info_of(t)->name, by_producer ? "producer" : "event type");
            doc = traza_svg_pie(title, items, n);
        }
        rc = doc ? cli_write_file(svg, doc, strlen(doc)) : EXIT_FAIL;
        free(doc);
        free(items);
    }
done:
    free(types);
    free(prods);
    free(paths);
    traza_stats_free(&st);
    traza_trace_close(t);
out:
    cli_filter_free(&cf);
    return rc;
}
