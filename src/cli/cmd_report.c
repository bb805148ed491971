/* traza report TRACE... [--diff BASE] -o FILE.html */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

const char cmd_report_usage[] =
    "usage: traza report TRACE... [--diff BASE] [-o FILE.html] [--slices N] [--json]\n"
    "\n"
    "Writes a self-contained HTML report (inline SVG, opens offline): per trace its\n"
    "metadata, event density, events per type and per producer, and the states with\n"
    "the largest total duration. Prints the report's path.\n"
    "  -o FILE      output (default: traza-report.html)\n"
    "  --diff BASE  first a section on what changed from trace BASE (the old run) to the\n"
    "               first TRACE: the rows of `traza diff` by event type and, for traces\n"
    "               of calls, by function with the differential flame graph; a table\n"
    "               lists its first 30 rows ('traza diff --json' lists them all); then\n"
    "               the call paths of one run only and the sequence patterns whose\n"
    "               counts changed ('traza diff --by function --patterns')\n"
    "  --slices N   density slices (default 60)\n"
    "  --json       {\"report\": PATH}\n";

int cmd_report(traza_cli *cli, int argc, char **argv)
{
    enum { O_SLICES = OPT_FIRST_FREE, O_DIFF };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"output", required_argument, NULL, 'o'},
        {"slices", required_argument, NULL, O_SLICES},
        {"diff", required_argument, NULL, O_DIFF},
        {NULL, 0, NULL, 0},
    };
    const char *out = "traza-report.html", *base_name = NULL;
    long slices = 60;
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:o:", longopts)) != -1) {
        if (c == 'o') { out = optarg; continue; }
        if (c == O_DIFF) { base_name = optarg; continue; }
        if (c == O_SLICES) {
            char *end;
            slices = strtol(optarg, &end, 10);
            if (*end || slices < 1 || slices > 10000)
                return cli_usage_error("report", "--slices expects 1 to 10000");
            continue;
        }
        int k = cli_common_opt(cli, "report", c);
        if (k == -1) return EXIT_OK;
        if (k <= 0) return EXIT_USAGE;
    }
    if (optind >= argc)
        return cli_usage_error("report", "no trace given");
    size_t n = (size_t)(argc - optind);
    traza_trace **ts = calloc(n, sizeof *ts);
    if (!ts)
        return EXIT_FAIL;
    int rc = EXIT_OK;
    traza_trace *base = NULL;
    for (size_t i = 0; i < n && rc == EXIT_OK; i++)
        if (!(ts[i] = cli_trace(cli, argv[optind + (int)i], TRAZA_OPEN_READ)))
            rc = EXIT_FAIL;
    if (rc == EXIT_OK && base_name && !(base = cli_trace(cli, base_name, TRAZA_OPEN_READ)))
        rc = EXIT_FAIL;
    if (rc == EXIT_OK) {
        traza_err err;
        traza_err_clear(&err);
        char *html = traza_report_html_diff(ts, n, base, (size_t)slices, &err);
        if (!html) {
            rc = cli_fail(cli, &err);
        } else {
            rc = cli_write_file(out, html, strlen(html));
            if (rc == EXIT_OK) {
                char *real = realpath(out, NULL);
                if (cli->json) {
                    tz_buf b;
                    tz_buf_init(&b);
                    tz_buf_puts(&b, "{\"report\":");
                    tz_json_str(&b, real ? real : out);
                    tz_buf_puts(&b, "}\n");
                    fputs(b.s ? b.s : "", stdout);
                    tz_buf_free(&b);
                } else {
                    printf("%s\n", real ? real : out);
                }
                free(real);
            }
            free(html);
        }
    }
    for (size_t i = 0; i < n; i++)
        traza_trace_close(ts[i]);
    traza_trace_close(base);
    free(ts);
    return rc;
}
