/* traza tools [TOOL] [--json] */
#include "cli/cli.h"
#include "server/tool_json.h"
#include "util/util.h"

#include <string.h>

const char cmd_tools_usage[] =
    "usage: traza tools [TOOL] [--json]\n"
    "\n"
    "Lists the registered tools (importers, exporters, analyses; built-in, plugins\n"
    "from $TRAZA_PLUGIN_PATH, and external tools described by .tool manifests), or\n"
    "shows one tool's options. Run any of them with 'traza run TOOL TRACE [--opt v]'.\n";

int cmd_tools(traza_cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS, {NULL, 0, NULL, 0}};
    int c;
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        int k = cli_common_opt(cli, "tools", c);
        if (k == -1) return EXIT_OK;
        if (k <= 0) return EXIT_USAGE;
    }
    traza_registry *reg = cli_registry(cli);
    tz_buf b;
    tz_buf_init(&b);
    if (optind < argc) {
        const traza_tool *t = traza_registry_find(reg, argv[optind]);
        if (!t) {
            fprintf(stderr, "traza: no tool named '%s' (see 'traza tools')\n", argv[optind]);
            return EXIT_FAIL;
        }
        if (cli->json) {
            tz_tool_json(&b, t, 0);
            tz_buf_putc(&b, '\n');
        } else {
            tz_buf_printf(&b, "%s (%s, %s)\n  %s\n", t->name, traza_tool_kind_name(t->kind), t->origin, t->summary ? t->summary : "");
            for (size_t i = 0; i < t->noptions; i++) {
                const traza_tool_option *o = &t->options[i];
                char help[512];
                cli_tool_words(t, o->help ? o->help : "", help, sizeof help);
                tz_buf_printf(&b, "  --%-14s %-7s %s%s%s%s%s\n", o->name, traza_opt_type_name(o->type), help,
                              o->def ? " (default " : "", o->def ? o->def : "", o->def ? ")" : "", o->required ? " [required]" : "");
            }
        }
    } else if (cli->json) {
        tz_buf_putc(&b, '[');
        for (size_t i = 0; i < traza_registry_count(reg); i++) {
            if (i)
                tz_buf_putc(&b, ',');
            tz_tool_json(&b, traza_registry_at(reg, i), 0);
        }
        tz_buf_puts(&b, "]\n");
    } else {
        for (size_t i = 0; i < traza_registry_count(reg); i++) {
            const traza_tool *t = traza_registry_at(reg, i);
            tz_buf_printf(&b, "%-22s %-9s %s%s%s\n", t->name, traza_tool_kind_name(t->kind), t->summary ? t->summary : "",
                          strcmp(t->origin, "builtin") ? "  [" : "", strcmp(t->origin, "builtin") ? t->origin : "");
            if (strcmp(t->origin, "builtin"))
                tz_buf_puts(&b, "]");
        }
    }
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    return EXIT_OK;
}
