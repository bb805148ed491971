/* traza meta TRACE [KEY=VALUE...] [--unset KEY]... [--json] */
#include "cli/cli.h"
#include "cli/meta_cli.h"

#include <stdlib.h>
#include <string.h>

const char cmd_meta_usage[] =
    "usage: traza meta TRACE [KEY=VALUE...] [--unset KEY]... [--json]\n"
    "\n"
    "Shows or changes a trace's descriptive metadata, kept in the workspace catalogue:\n"
    "its alias and free KEY=VALUE pairs such as FrameSoC's application, board, os and\n"
    "description. With no KEY=VALUE and no --unset, lists them (one KEY=VALUE a line).\n"
    "Every change of one call is made at once, or none is. 'traza list --where'\n"
    "selects traces by them; 'traza import --meta' sets them at import.\n"
    "\n"
    "  KEY=VALUE      set KEY (letters, digits, '_', '-', '.'; 'alias' is the alias)\n"
    "  --unset KEY    remove KEY\n"
    "  --json         list as one object {\"alias\": ..., KEY: VALUE...}\n";

static void list_meta(traza_cli *cli, const traza_trace_info *info, tz_buf *b)
{
    if (cli->json) {
        tz_buf_puts(b, "{\"alias\":");
        if (info->alias)
            tz_json_str(b, info->alias);
        else
            tz_buf_puts(b, "null");
        for (size_t i = 0; i < info->nparams; i++) {
            tz_buf_putc(b, ',');
            tz_json_str(b, info->params[i].key);
            tz_buf_putc(b, ':');
            tz_json_str(b, info->params[i].value ? info->params[i].value : "");
        }
        tz_buf_puts(b, "}\n");
        return;
    }
    if (info->alias)
        tz_buf_printf(b, "alias=%s\n", info->alias);
    for (size_t i = 0; i < info->nparams; i++)
        tz_buf_printf(b, "%s=%s\n", info->params[i].key, info->params[i].value ? info->params[i].value : "");
}

int cmd_meta(traza_cli *cli, int argc, char **argv)
{
    enum { O_UNSET = OPT_FIRST_FREE };
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, {"unset", required_argument, NULL, O_UNSET}, {NULL, 0, NULL, 0}};
    traza_kv *kv = calloc((size_t)argc + 1, sizeof *kv);
    if (!kv) {
        fprintf(stderr, "traza: out of memory\n");
        return EXIT_FAIL;
    }
    size_t n = 0;
    int c, rc = EXIT_OK;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        if (c == O_UNSET) {
            traza_err e;
            traza_err_clear(&e);
            if (traza_meta_key_check(optarg, &e) < 0) {
                rc = cli_usage_error("meta", "--unset: %s", e.msg);
                goto out;
            }
            kv[n].key = optarg;
            kv[n++].value = NULL;
            continue;
        }
        int r = cli_common_opt(cli, "meta", c);
        if (r == -1 || r <= 0) {
            rc = r == -1 ? EXIT_OK : EXIT_USAGE;
            goto out;
        }
    }
    if (optind >= argc) {
        rc = cli_usage_error("meta", "expected a trace name");
        goto out;
    }
    const char *trace = argv[optind];
    for (int i = optind + 1; i < argc; i++)
        if ((rc = cli_meta_arg("meta", argv[i], &kv[n++])) != 0)
            goto out;
    traza_workspace *ws = cli_ws_existing(cli, trace);
    if (!ws) {
        rc = EXIT_FAIL;
        goto out;
    }
    traza_err err;
    traza_err_clear(&err);
    if (n) {
        if (traza_workspace_set_meta(ws, trace, kv, n, &err) < 0)
            rc = cli_fail(cli, &err);
        goto out;
    }
    traza_trace_info info;
    if (traza_workspace_find(ws, trace, &info, &err) < 0) {
        rc = cli_fail(cli, &err);
        goto out;
    }
    tz_buf b;
    tz_buf_init(&b);
    list_meta(cli, &info, &b);
    traza_trace_info_clear(&info);
    if (b.oom) {
        fprintf(stderr, "traza: out of memory\n");
        rc = EXIT_FAIL;
    } else if (b.len) {
        fwrite(b.s, 1, b.len, stdout);
    }
    tz_buf_free(&b);
out:
    free(kv);
    return rc;
}
