/* Built-in tools: one `extern const traza_tool` per tool file, listed below. */
#ifndef TZ_BUILTIN_LIST_H
#define TZ_BUILTIN_LIST_H

#include "traza/tool.h"

extern const traza_tool tz_tool_filter;
extern const traza_tool tz_tool_producer_activity;
extern const traza_tool tz_tool_anomaly;
extern const traza_tool tz_tool_correlate;
extern const traza_tool tz_tool_aggregate;
extern const traza_tool tz_tool_seqsearch;
extern const traza_tool tz_tool_ctf_kernel;

static const traza_tool *const tz_builtin_tools[] = {
    &tz_tool_filter,
    &tz_tool_producer_activity,
    &tz_tool_anomaly,
    &tz_tool_correlate,
    &tz_tool_aggregate,
    &tz_tool_seqsearch,
    &tz_tool_ctf_kernel,
    NULL,
};

/* Importers and exporters become tools named "import-<format>" / "export-<format>". */
int tz_register_importer_tools(traza_registry *reg, traza_err *err);
int tz_register_exporter_tools(traza_registry *reg, traza_err *err);

#endif
