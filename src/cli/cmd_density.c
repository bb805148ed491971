/* traza density TRACE [filters] [--slices N] [--svg FILE] [--json] */
#include "cli/cli.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

const char cmd_density_usage[] =
    "usage: traza density TRACE [FILTERS] [--slices N] [--svg FILE] [--json]\n"
    "\n"
    "Counts the matching events in N equal time slices of the window (default: the\n"
    "whole trace).\n"
    "\n" CLI_FILTER_HELP
    "Output:\n"
    "  --slices N   number of slices (default 50, at most 100000)\n"
    "  --svg FILE   a histogram\n"
    "  --json       {\"from\", \"to\", \"slice\", \"counts\": [...]}\n";

int cmd_density(traza_cli *cli, int argc, char **argv)
{
    enum { O_SVG = OPT_FIRST_FREE, O_SLICES };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS, CLI_FILTER_LONGOPTS,
        {"svg", required_argument, NULL, O_SVG},
        {"slices", required_argument, NULL, O_SLICES},
        {NULL, 0, NULL, 0},
    };
    cli_filter cf;
    cli_filter_init(&cf);
    const char *svg = NULL;
    long slices = 50;
    int c, rc = EXIT_OK;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        int r = cli_filter_opt(&cf, "density", c, optarg);
        if (r < 0) { rc = EXIT_USAGE; goto out; }
        if (r) continue;
        if (c == O_SVG) { svg = optarg; continue; }
        if (c == O_SLICES) {
            char *end;
            slices = strtol(optarg, &end, 10);
            if (*end || slices < 1 || slices > 100000) { rc = cli_usage_error("density", "--slices expects 1 to 100000, got '%s'", optarg); goto out; }
            continue;
        }
        int k = cli_common_opt(cli, "density", c);
        if (k == -1) goto out;
        if (k <= 0) { rc = EXIT_USAGE; goto out; }
    }
    if (optind + 1 != argc) { rc = cli_usage_error("density", "expected one trace name"); goto out; }
    traza_trace *t = cli_trace(cli, argv[optind], TRAZA_OPEN_READ);
    if (!t) { rc = EXIT_FAIL; goto out; }
    if ((rc = cli_filter_resolve(cli, &cf, t)) != EXIT_OK) { traza_trace_close(t); goto out; }
    traza_err err;
    traza_err_clear(&err);
    uint64_t *counts = calloc((size_t)slices, sizeof *counts);
    int64_t from, to;
    if (!counts) {
        rc = EXIT_FAIL;
    } else if (traza_density(t, &cf.f, (size_t)slices, counts, &from, &to, &err) < 0) {
        rc = cli_fail(cli, &err);
    } else {
        const traza_trace_info *info = traza_trace_info_of(t);
        double slice = ((double)to - (double)from + 1) / (double)slices;
        tz_buf b;
        tz_buf_init(&b);
        if (cli->json) {
            tz_buf_printf(&b, "{\"from\":%lld,\"to\":%lld,\"time_unit\":%d,\"slice\":", (long long)from, (long long)to, info->time_unit);
            tz_json_num(&b, slice);
            tz_buf_puts(&b, ",\"counts\":[");
            for (long i = 0; i < slices; i++)
                tz_buf_printf(&b, "%s%llu", i ? "," : "", (unsigned long long)counts[i]);
            tz_buf_puts(&b, "]}\n");
        } else {
            uint64_t max = 1;
            for (long i = 0; i < slices; i++)
                if (counts[i] > max) max = counts[i];
            for (long i = 0; i < slices; i++) {
                int64_t s0 = from + (int64_t)(slice * (double)i);
                int w = (int)(50 * counts[i] / max);
                tz_buf_printf(&b, "%16lld %10llu %.*s\n", (long long)s0, (unsigned long long)counts[i], w,
                              "##################################################");
            }
        }
        fputs(b.s ? b.s : "", stdout);
        tz_buf_free(&b);
        if (svg) {
            char title[600];
            snprintf(title, sizeof title, "%s: event density", info->name);
            char *doc = traza_svg_density(title, counts, (size_t)slices, from, to, info);
            rc = doc ? cli_write_file(svg, doc, strlen(doc)) : EXIT_FAIL;
            free(doc);
        }
    }
    free(counts);
    traza_trace_close(t);
out:
    cli_filter_free(&cf);
    return rc;
}
