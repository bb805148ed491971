/* Exporting: the exporter table, and writing through a temporary file. */
#include "export/exporters.h"
#include "tools/builtin_list.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t traza_exporter_count(void)
{
    size_t n = 0;
    while (tz_exporters[n])
        n++;
    return n;
}

const traza_exporter *traza_exporter_at(size_t i) { return i < traza_exporter_count() ? tz_exporters[i] : NULL; }

const traza_exporter *traza_exporter_find(const char *name)
{
    for (size_t i = 0; tz_exporters[i]; i++)
        if (strcmp(tz_exporters[i]->name, name) == 0)
            return tz_exporters[i];
    return NULL;
}

static int write_with(const traza_exporter *ex, traza_trace *t, const traza_filter *f, const traza_export_opts *o, FILE *out,
                      traza_err *err)
{
    return ex->write_opts ? ex->write_opts(t, f, o, out, err) : ex->write(t, f, out, err);
}

int traza_export(traza_trace *t, const char *format, const traza_filter *f, const char *path, traza_err *err)
{
    return traza_export_with(t, format, f, NULL, path, err);
}

int traza_export_with(traza_trace *t, const char *format, const traza_filter *f, const traza_export_opts *o, const char *path,
                      traza_err *err)
{
    const traza_exporter *ex = traza_exporter_find(format);
    if (!ex) {
        tz_buf b;
        tz_buf_init(&b);
        for (size_t i = 0; tz_exporters[i]; i++)
            tz_buf_printf(&b, "%s%s", i ? ", " : "", tz_exporters[i]->name);
        int rc = traza_err_set(err, TRAZA_E_USAGE, "unknown export format '%s' (known: %s)", format, b.s ? b.s : "");
        tz_buf_free(&b);
        return rc;
    }
    if (strcmp(path, "-") == 0) {
        if (write_with(ex, t, f, o, stdout, err) < 0)
            return -1;
        if (fflush(stdout) != 0)
            return traza_err_set(err, TRAZA_E_IO, "standard output: write error: %s", strerror(errno));
        return 0;
    }
    tz_outfile out;
    if (tz_outfile_open(&out, path, err) < 0)
        return -1;
    int rc = write_with(ex, t, f, o, out.f, err);
    return tz_outfile_close(&out, rc == 0, err) < 0 ? -1 : rc;
}

/* ---- exporters as tools ("export-<format>") -------------------------------- */

static const traza_tool_option export_opts[] = {
    {"output", TRAZA_OPT_STRING, "-", "output file ('-' = standard output)", 0, 0},
};

static int run_export_tool(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    const traza_exporter *ex = tool->user;
    if (!call->trace)
        return traza_err_set(err, TRAZA_E_USAGE, "tool '%s' needs a trace", tool->name);
    traza_trace *t = traza_trace_open(call->ws, call->trace, TRAZA_OPEN_READ, err);
    if (!t)
        return -1;
    int rc = traza_export(t, ex->name, NULL, traza_tool_arg(tool, call->args, "output"), err);
    traza_trace_close(t);
    return rc;
}

int tz_register_exporter_tools(traza_registry *reg, traza_err *err)
{
    for (size_t i = 0; tz_exporters[i]; i++) {
        traza_tool t = {0};
        t.name = tz_exporters[i]->tool_name;
        t.summary = tz_exporters[i]->summary;
        t.kind = TRAZA_TOOL_EXPORTER;
        t.options = export_opts;
        t.noptions = sizeof export_opts / sizeof export_opts[0];
        t.run = run_export_tool;
        t.user = (void *)tz_exporters[i];
        if (traza_registry_add(reg, &t, err) < 0)
            return -1;
    }
    return 0;
}
