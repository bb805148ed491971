/* Shared helpers of the analysis tools: typed option access, saving, SVG pieces. */
#ifndef TZ_ANALYSIS_TOOL_UTIL_H
#define TZ_ANALYSIS_TOOL_UTIL_H

#include "traza/analysis.h"
#include "traza/tool.h"
#include "util/util.h"

/* The option every analysis that saves a result has: without it, a result of the same
 * name is an error, never silently replaced. */
#define TZ_OPT_REPLACE {"replace", TRAZA_OPT_BOOL, "false", "replace a saved result of the same name", 0, 0}

const char *tz_targ(const traza_tool *tool, const traza_tool_call *call, const char *name);
int tz_targ_bool(const traza_tool *tool, const traza_tool_call *call, const char *name);
double tz_targ_double(const traza_tool *tool, const traza_tool_call *call, const char *name, double def);
/* A time option in the trace's unit; 0 when absent. -1 on a parse error. */
int tz_targ_time(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const char *name, int64_t *out, traza_err *err);
/* An instant of the trace (--from, --to): a time with a unit counts from the trace's
 * start (traza_time_parse_in); tz_targ_time reads a duration. */
int tz_targ_instant(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const char *name, int64_t *out,
                    traza_err *err);
/* Shows the warnings of a run (call->warn, else printed as "warning: ..." in text
 * output); with json, also appends `, "warnings": [...]` to b when b is not NULL. */
void tz_warnings_show(const traza_tool_call *call, const traza_warnings *w);
void tz_json_warnings(tz_buf *b, const traza_warnings *w);
/* Appends the warnings of src to dst. */
void tz_warnings_merge(traza_warnings *dst, const traza_warnings *src);
/* The provenance inputs of a run: those of the series or sets a, b (either NULL) that
 * name a saved result rather than an event type, one a line into out; NULL if none. */
const char *tz_result_inputs(traza_trace *t, const char *a, const char *b, char *out, size_t cap);
/* Writes a buffer to a file. */
int tz_write_file(const char *path, const tz_buf *b, traza_err *err);

/* SVG: document start/end, a framed plot area and a scatter of (x, y). */
void tz_svg_begin(tz_buf *b, int w, int h, const char *title);
void tz_svg_end(tz_buf *b);
typedef struct tz_plot {
    double x, y, w, h;        /* pixel frame */
    double x0, x1, y0, y1;    /* data window */
} tz_plot;
void tz_svg_frame(tz_buf *b, const tz_plot *p, const char *title, const char *xlabel, const char *ylabel);
double tz_px(const tz_plot *p, double x);
double tz_py(const tz_plot *p, double y);
/* A categorical colour. */
const char *tz_svg_color(size_t i);
void tz_svg_text(tz_buf *b, double x, double y, const char *anchor, const char *text);

#endif

/* The series spec from --type/--producer (or --series when type is NULL). */
int tz_series_spec(const traza_tool *tool, const traza_tool_call *call, const char *type_opt, char *buf, size_t size, traza_err *err);
/* Detects anomalies of `spec` with the tool's --metric/--rule/--k/--subtree options,
 * saves them (--save or a default name), prints unless !print (with its warnings),
 * draws --svg when draw. *anom receives the anomalies as a series (ids, ts) when not
 * NULL; *warn (not NULL) the detection's warnings. */
int tz_anomaly_run(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const char *spec, int print,
                   int draw, traza_series *anom, traza_warnings *warn, traza_err *err);
/* Checks --metric, --rule and --k. */
int tz_anomaly_opts(const traza_tool *tool, const traza_tool_call *call, int *metric, int *rule, double *k, traza_err *err);
/* Points of a series over time (x = ts, y = index) in a plot; mark[i] != 0 in red. */
void tz_svg_series(tz_buf *b, const tz_plot *p, const int64_t *ts, size_t n, const unsigned char *mark, const char *color);
