/* traza rm TRACE... */
#include "cli/cli.h"

const char cmd_rm_usage[] =
    "usage: traza rm TRACE... [--json]\n"
    "\n"
    "Removes traces (by name or id) from the workspace, with their saved results.\n"
    "  --json   {\"removed\": [TRACE, ...]}: those removed (the others are errors)\n";

int cmd_rm(traza_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, {NULL, 0, NULL, 0}};
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        int r = cli_common_opt(cli, "rm", c);
        if (r == -1) return EXIT_OK;
        if (r <= 0) return EXIT_USAGE;
    }
    if (optind >= argc)
        return cli_usage_error("rm", "no trace given");
    traza_workspace *ws = cli_ws_existing(cli, argv[optind]);
    if (!ws)
        return EXIT_FAIL;
    int rc = EXIT_OK;
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"removed\":[");
    size_t nremoved = 0;
    for (int i = optind; i < argc; i++) {
        traza_err err;
        traza_err_clear(&err);
        if (traza_workspace_remove(ws, argv[i], &err) < 0) {
            rc = cli_fail(cli, &err);
        } else if (cli->json) {
            if (nremoved++)
                tz_buf_putc(&b, ',');
            tz_json_str(&b, argv[i]);
        } else if (!cli->quiet) {
            printf("removed '%s'\n", argv[i]);
        }
    }
    tz_buf_puts(&b, "]}\n");
    if (cli->json)
        fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    return rc;
}
