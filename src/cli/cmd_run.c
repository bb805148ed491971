/* traza run TOOL [TRACE|FILE] [--option value | --option=value]... */
#include "cli/cli.h"

#include <string.h>

const char cmd_run_usage[] =
    "usage: traza run TOOL [TRACE | FILE] [--OPTION VALUE | --OPTION=VALUE]... [--json]\n"
    "\n"
    "Runs any registered tool (see 'traza tools'; 'traza tools TOOL' lists its typed\n"
    "options). Analyses take a trace, importers a file. An option given without a\n"
    "value is a boolean set to true.\n";

int cmd_run(traza_cli *cli, int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("run", "no tool given");
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        cli_print_usage("run");
        return EXIT_OK;
    }
    const traza_tool *tool = traza_registry_find(cli_registry(cli), argv[1]);
    if (!tool) {
        fprintf(stderr, "traza: no tool named '%s' (see 'traza tools')\n", argv[1]);
        return EXIT_FAIL;
    }
    const char *keys[256], *vals[256], *target = NULL;
    char keybufs[256][256];
    size_t n = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--workspace") || !strcmp(a, "-w")) {
            if (i + 1 >= argc) return cli_usage_error("run", "--workspace needs a value");
            cli->ws_path = argv[++i];
            continue;
        }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            cli_common_opt(cli, "run", 'q');
            continue;
        }
        if (strncmp(a, "--", 2) != 0) {
            if (target)
                return cli_usage_error("run", "unexpected argument '%s' (one trace or file only)", a);
            target = a;
            continue;
        }
        if (!strcmp(a, "--json")) { cli->json = 1; continue; }
        if (n >= 256)
            return cli_usage_error("run", "too many options");
        char (*bufs)[256] = keybufs;
        const char *eq = strchr(a + 2, '=');
        if (eq) {
            size_t kl = (size_t)(eq - a - 2);
            if (kl >= sizeof bufs[0])
                return cli_usage_error("run", "option name too long");
            memcpy(bufs[n], a + 2, kl);
            bufs[n][kl] = '\0';
            keys[n] = bufs[n];
            vals[n] = eq + 1;
        } else {
            keys[n] = a + 2;
            vals[n] = (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) ? argv[++i] : "true";
        }
        if (!cli_tool_has_option("run", tool, keys[n]))
            return EXIT_USAGE;
        n++;
    }
    if (tool->kind == TRAZA_TOOL_EXPORTER && cli_no_json(cli, "run", "an exporter (it writes its format)"))
        return EXIT_USAGE;
    traza_workspace *ws = tool->kind == TRAZA_TOOL_IMPORTER ? cli_ws(cli) : cli_ws_existing(cli, target);
    if (!ws)
        return EXIT_FAIL;
    traza_tool_args args = {n, keys, vals};
    traza_tool_call call = {cli->ctx, ws, target, &args, cli->json, cli_tool_print, cli, NULL};
    traza_err err;
    traza_err_clear(&err);
    if (traza_tool_run(tool, &call, &err) < 0)
        return cli_fail_tool(cli, tool, &err);
    return EXIT_OK;
}
