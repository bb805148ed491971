/* traza export TRACE --format F -o FILE [--absolute] [filters] */
#include "cli/cli.h"

#include <string.h>

const char cmd_export_usage[] =
    "usage: traza export TRACE --format FORMAT [-o FILE] [--absolute] [FILTERS]\n"
    "\n"
    "Writes the trace (or the events the filters select) in another format. The file\n"
    "is written to a temporary and moved into place, so a failure leaves no partial file.\n"
    "\n"
    "  --format F   one of the exporters 'traza tools' lists as export-F\n"
    "               (csv; paje, pjdump, chrome, perfetto, folded and pprof when built in)\n"
    "  -o FILE      output file (default: standard output)\n"
    "  --absolute   absolute times, in the filters (below) and in the output: chrome\n"
    "               timestamps as stored (default: from the trace start, so that\n"
    "               microsecond doubles keep their nanoseconds)\n"
    "\n" CLI_FILTER_HELP;

int cmd_export(traza_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS, CLI_FILTER_LONGOPTS,
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    cli_filter cf;
    cli_filter_init(&cf);
    const char *format = NULL, *out = "-";
    traza_export_opts xo = {0};
    int c, rc = EXIT_OK;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:f:o:", longopts)) != -1) {
        int r = cli_filter_opt(&cf, "export", c, optarg);
        if (r < 0) { rc = EXIT_USAGE; goto done; }
        if (r) continue;
        if (c == 'f') { format = optarg; continue; }
        if (c == 'o') { out = optarg; continue; }
        int k = cli_common_opt(cli, "export", c);
        if (k == -1) goto done;
        if (k <= 0) { rc = EXIT_USAGE; goto done; }
    }
    if (optind + 1 != argc) { rc = cli_usage_error("export", "expected one trace name"); goto done; }
    if (!format) { rc = cli_usage_error("export", "--format is required"); goto done; }
    if (cli_no_json(cli, "export", "export (it writes the chosen format)")) { rc = EXIT_USAGE; goto done; }
    traza_trace *t = cli_trace(cli, argv[optind], TRAZA_OPEN_READ);
    if (!t) { rc = EXIT_FAIL; goto done; }
    xo.absolute_time = cf.absolute;
    if ((rc = cli_filter_resolve(cli, &cf, t)) == EXIT_OK) {
        traza_err err;
        traza_err_clear(&err);
        if (traza_export_with(t, format, &cf.f, &xo, out, &err) < 0)
            rc = cli_fail(cli, &err);
        else if (strcmp(out, "-") != 0 && !cli->quiet)
            fprintf(stderr, "wrote %s\n", out);
    }
    traza_trace_close(t);
done:
    cli_filter_free(&cf);
    return rc;
}
