/* The library speaks in its own terms; the CLI spells them as its options.
 * A tool names one of its options as option 'NAME' (the server and the web UI show
 * that as it is); the CLI writes --NAME. A library error about something the user
 * gives with an option gets that option as advice. */
#include <string.h>
#include "cli/cli.h"

static const char *option_named(const traza_tool *tool, const char *name, size_t len)
{
    for (size_t k = 0; k < tool->noptions; k++)
        if (strlen(tool->options[k].name) == len && !strncmp(tool->options[k].name, name, len))
            return tool->options[k].name;
    return NULL;
}

void cli_tool_words(const traza_tool *tool, const char *text, char *out, size_t size)
{
    static const char opt[] = "option '";
    size_t o = 0;
    while (*text && o + 1 < size) {
        const char *name = text + sizeof opt - 1, *end = NULL, *n = NULL;
        if (!strncmp(text, opt, sizeof opt - 1) && (end = strchr(name, '\'')))
            n = option_named(tool, name, (size_t)(end - name));
        if (!n) {
            out[o++] = *text++;
            continue;
        }
        int w = snprintf(out + o, size - o, "--%s", n);
        o = w < 0 || (size_t)w >= size - o ? size - 1 : o + (size_t)w;
        text = end + 1;
    }
    if (size)
        out[o] = '\0';
}

int cli_fail_tool(traza_cli *cli, const traza_tool *tool, const traza_err *err)
{
    traza_err e = *err;
    cli_tool_words(tool, err->msg, e.msg, sizeof e.msg);
    /* a result of that name exists: the option that names the result saved */
    return cli_fail_saved(cli, &e, option_named(tool, "save", 4) ? "--save" : "--name");
}

/* What a library message says -> the option that gives it. The first match counts. */
static const struct {
    const char *says, *advice;
} hints[] = {
    {"itf: the distribution codec is lossy", "add --lossy"},
    {"itf: the first instruction to extract", "--from"},
    {"no importer recognises it", "give --format"},
    {"the format is not recognised", "give it with --format"},
    {"tsunit= in the column map", "--time-unit, or --map tsunit="},
    {"column map", "--map"},
    {"the trace a finer time unit", "--time-unit"},
    {"pc: the map accepts", "--map"},
    {"base=hex in the map", "--map base=hex"},
};

const char *cli_hint(const char *msg)
{
    for (size_t i = 0; i < sizeof hints / sizeof *hints; i++)
        if (strstr(msg, hints[i].says))
            return hints[i].advice;
    return NULL;
}
