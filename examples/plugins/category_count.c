/* An example traza plugin: registers the analysis tool "category-count", which
 * counts a trace's events per category and saves the counts as annotations.
 *
 * Build: cc -shared -fPIC -o category_count.so category_count.c $(pkg-config --cflags traza)
 * Use:   TRAZA_PLUGIN_PATH=DIR traza run category-count TRACE
 * The plugin's undefined libtraza symbols resolve against the host (the traza binary
 * exports them), so it needs no link flags. */
#include <stdio.h>
#include <string.h>
#include "traza/traza.h"

static int run(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    traza_trace *t = traza_trace_open(call->ws, call->trace, TRAZA_OPEN_WRITE, err);
    if (!t)
        return -1;
    const traza_trace_info *info = traza_trace_info_of(t);
    traza_annotation a[TRAZA_NCATEGORIES];
    for (int c = 0; c < TRAZA_NCATEGORIES; c++) {
        memset(&a[c], 0, sizeof a[c]);
        a[c].key = traza_category_name((traza_category)c);
        a[c].value.kind = TRAZA_PT_INT;
        a[c].value.i = info->categories[c];
    }
    const char *name = traza_tool_arg(tool, call->args, "name");
    traza_result_meta m = {.name = name, .tool = tool->name, .replace = 1};
    int64_t id = traza_result_save_annotations(t, &m, a, TRAZA_NCATEGORIES, err);
    if (id > 0)
        traza_tool_printf(call, "punctual=%lld state=%lld link=%lld variable=%lld\n", (long long)a[0].value.i,
                          (long long)a[1].value.i, (long long)a[2].value.i, (long long)a[3].value.i);
    traza_trace_close(t);
    return id > 0 ? 0 : -1;
}

static const traza_tool_option options[] = {
    {"name", TRAZA_OPT_STRING, "category-count", "name of the saved annotations", 0, 0},
};

static const traza_tool tool = {
    "category-count", "example plugin: events per category, saved as annotations", TRAZA_TOOL_ANALYSIS,
    options, 1, run, NULL, NULL,
};

int traza_plugin_init(traza_registry *reg, int abi, traza_err *err);
int traza_plugin_init(traza_registry *reg, int abi, traza_err *err)
{
    if (abi != TRAZA_PLUGIN_ABI)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "built for plugin ABI %d, host has %d", TRAZA_PLUGIN_ABI, abi);
    return traza_registry_add(reg, &tool, err);
}
