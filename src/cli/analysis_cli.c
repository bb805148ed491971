/* The shared front end of `traza anomaly|correlate|aggregate|seqsearch`. */
#include "cli/analysis_cli.h"

#include <stdlib.h>
#include <string.h>

/* Warnings go to stderr, apart from the output (text or JSON) on stdout. */
static void warn_stderr(void *user, const char *text)
{
    cli_progress_clear(user);
    fprintf(stderr, "traza: warning: %s\n", text);
}

int cli_run_analysis(traza_cli *cli, const char *cmd, const char *toolname, int argc, char **argv)
{
    const traza_tool *tool = traza_registry_find(cli_registry(cli), toolname);
    if (!tool) {
        fprintf(stderr, "traza: the %s tool is not registered\n", toolname);
        return EXIT_FAIL;
    }
    const char **keys = calloc((size_t)argc + 1, sizeof *keys), **vals = calloc((size_t)argc + 1, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        fprintf(stderr, "traza: out of memory\n");
        return EXIT_FAIL;
    }
    size_t n = 0;
    const char *trace = NULL;
    int rc = EXIT_USAGE;
    char *eqbuf[64];
    size_t neq = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            cli_print_usage(cmd);
            rc = EXIT_OK;
            goto done;
        }
        if (!strcmp(a, "--json")) { cli->json = 1; continue; }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) { cli_common_opt(cli, cmd, 'q'); continue; }
        if (!strcmp(a, "-w") || !strcmp(a, "--workspace")) {
            if (i + 1 >= argc) {
                cli_usage_error(cmd, "%s needs a value", a);
                goto done;
            }
            cli->ws_path = argv[++i];
            continue;
        }
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            if (trace) {
                cli_usage_error(cmd, "unexpected argument '%s' (one trace only)", a);
                goto done;
            }
            trace = a;
            continue;
        }
        const char *name = a + 2, *val = NULL;
        const char *eq = strchr(name, '=');
        if (eq) {
            if (neq == 64) {
                cli_usage_error(cmd, "too many options");
                goto done;
            }
            char *nm = strndup(name, (size_t)(eq - name));
            if (!nm)
                goto done;
            eqbuf[neq++] = nm;
            name = nm;
            val = eq + 1;
        }
        if (!cli_tool_has_option(cmd, tool, name))
            goto done;
        const traza_tool_option *o = NULL;
        for (size_t k = 0; k < tool->noptions; k++)
            if (!strcmp(tool->options[k].name, name))
                o = &tool->options[k];
        if (!val) {
            if (o->type == TRAZA_OPT_BOOL) {
                val = "true";
            } else {
                if (i + 1 >= argc) {
                    cli_usage_error(cmd, "option --%s needs a value", name);
                    goto done;
                }
                val = argv[++i];
            }
        }
        keys[n] = name;
        vals[n] = val;
        n++;
    }
    if (!trace) {
        cli_usage_error(cmd, "expected a trace name");
        goto done;
    }
    traza_workspace *ws = cli_ws_existing(cli, trace);
    if (!ws) {
        rc = EXIT_FAIL;
        goto done;
    }
    traza_tool_args args = {n, keys, vals};
    traza_tool_call call = {cli->ctx, ws, trace, &args, cli->json, cli_tool_print, cli, warn_stderr};
    traza_err err;
    traza_err_clear(&err);
    rc = traza_tool_run(tool, &call, &err) < 0 ? cli_fail_tool(cli, tool, &err) : EXIT_OK;
done:
    for (size_t i = 0; i < neq; i++)
        free(eqbuf[i]);
    free(keys);
    free(vals);
    return rc;
}
