/* The "correlate" tool: temporal correlation of two series, or the ranking of the
 * probable causes of a series (usually anomalies) among every other series. */
#include "analysis/tool_util.h"
#include "tools/tool_filter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const traza_tool_option correlate_opts[] = {
    {"series", TRAZA_OPT_STRING, NULL, "first series: TYPE, TYPE@PRODUCER or a saved event set", 0, 0},
    {"with", TRAZA_OPT_STRING, NULL, "second series", 0, 0},
    {"method", TRAZA_OPT_STRING, "regular", "regular (counts per time slice) or irregular (near/away from E1)", 0, 0},
    {"slices", TRAZA_OPT_STRING, "auto", "regular: auto (half the larger median gap), paper (floor(sqrt(n+m))) or a count", 0, 0},
    {"delta", TRAZA_OPT_TIME, NULL, "irregular: the near distance (default min(1% of the span, 1/4 median gap of E1))", 0, 0},
    {"rank", TRAZA_OPT_BOOL, "false", "rank every other (type, producer) series as a probable cause", 0, 0},
    {"anomalies-of", TRAZA_OPT_STRING, NULL, "detect the anomalies of this type first and use them as the series", 0, 0},
    {"producer", TRAZA_OPT_STRING, NULL, "with option 'anomalies-of': only this producer", 0, 0},
    {"subtree", TRAZA_OPT_BOOL, "false", "with option 'producer': include its descendants", 0, 0},
    {"metric", TRAZA_OPT_STRING, "duration", "with option 'anomalies-of': duration or period", 0, 0},
    {"rule", TRAZA_OPT_STRING, "mad", "with option 'anomalies-of': mad, sigma or ci99", 0, 0},
    {"k", TRAZA_OPT_DOUBLE, "3", "with option 'anomalies-of': factor of sigma and mad", 0, 0},
    {"top", TRAZA_OPT_STRING, "20", "rank: lines shown in text output (N >= 1, or all)", 0, 0},
    {"save", TRAZA_OPT_STRING, NULL, "name of the saved annotations", 0, 0},
    TZ_OPT_REPLACE,
    {"svg", TRAZA_OPT_STRING, NULL, "draw both series over time and the density histogram", 0, 0},
    TZ_FILTER_CONDITION_OPTIONS,
};

static int draw(const char *path, const traza_series *a, const traza_series *b, const traza_corr *c, traza_err *err)
{
    tz_buf s;
    tz_buf_init(&s);
    char title[600];
    snprintf(title, sizeof title, "%s vs %s: r = %.3f (%s)", a->name, b->name, c->r,
             c->method == TRAZA_CORR_REGULAR ? "regular" : "irregular");
    tz_svg_begin(&s, 900, 660, title);
    /* Each series on its own y scale (its event index, 0 .. n-1): the first on the
     * left axis, the second on the right one, so a small series beside a large one
     * still spans the plot's height. */
    tz_plot p1 = {70, 40, 780, 240, (double)c->t0, (double)c->t1, 0, a->n > 1 ? (double)(a->n - 1) : 1};
    tz_plot p1b = p1;
    p1b.y1 = b->n > 1 ? (double)(b->n - 1) : 1;
    tz_buf_printf(&s, "<g fill=\"%s\">", tz_svg_color(0));
    tz_svg_frame(&s, &p1, title, "timestamp", "event index (left axis)");
    tz_buf_puts(&s, "</g>\n");
    char num[64];
    tz_buf_printf(&s, "<g fill=\"%s\">", tz_svg_color(1));
    snprintf(num, sizeof num, "%.6g", p1b.y1);
    tz_svg_text(&s, p1b.x + p1b.w + 4, p1b.y + 10, "start", num);
    tz_svg_text(&s, p1b.x + p1b.w + 4, p1b.y + p1b.h, "start", "0");
    tz_buf_puts(&s, "</g>\n");
    tz_buf_printf(&s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n", p1.x, p1.y,
                  p1.x, p1.y + p1.h, tz_svg_color(0));
    tz_buf_printf(&s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n", p1.x + p1.w,
                  p1.y, p1.x + p1.w, p1.y + p1.h, tz_svg_color(1));
    tz_svg_series(&s, &p1, a->ts, a->n, NULL, tz_svg_color(0));
    tz_svg_series(&s, &p1b, b->ts, b->n, NULL, tz_svg_color(1));
    tz_buf_printf(&s, "<rect x=\"720\" y=\"50\" width=\"10\" height=\"10\" fill=\"%s\"/>", tz_svg_color(0));
    char lbl[300];
    snprintf(lbl, sizeof lbl, "%s (left axis)", a->name);
    tz_svg_text(&s, 735, 59, "start", lbl);
    tz_buf_printf(&s, "<rect x=\"720\" y=\"66\" width=\"10\" height=\"10\" fill=\"%s\"/>", tz_svg_color(1));
    snprintf(lbl, sizeof lbl, "%s (right axis)", b->name);
    tz_svg_text(&s, 735, 75, "start", lbl);
    /* Histogram: regular = counts of both; irregular = density of E2 per interval,
     * near intervals red, the rest grey. */
    const double *h = c->method == TRAZA_CORR_IRREGULAR ? (c->swapped ? c->a : c->b) : c->a;
    double hmax = 0;
    for (size_t k = 0; k < c->nbins; k++) {
        if (h[k] > hmax) hmax = h[k];
        if (c->method == TRAZA_CORR_REGULAR && c->b[k] > hmax) hmax = c->b[k];
    }
    tz_plot p2 = {70, 360, 800, 240, (double)c->t0, (double)c->t1 + 1, 0, hmax > 0 ? hmax : 1};
    tz_svg_frame(&s, &p2, c->method == TRAZA_CORR_IRREGULAR ? "density of the larger series (red: within delta of the smaller)"
                                                            : "events per slice", "timestamp",
                 c->method == TRAZA_CORR_IRREGULAR ? "events per tick" : "events");
    for (size_t k = 0; k < c->nbins; k++) {
        double x0 = tz_px(&p2, (double)c->from[k]), x1 = tz_px(&p2, (double)c->to[k]);
        if (c->method == TRAZA_CORR_IRREGULAR) {
            double y = tz_py(&p2, h[k]);
            tz_buf_printf(&s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", x0, y,
                          x1 - x0 > 0.3 ? x1 - x0 : 0.3, p2.y + p2.h - y, c->near[k] ? "#d62728" : "#9e9e9e");
        } else {
            double w = (x1 - x0) / 2, ya = tz_py(&p2, c->a[k]), yb = tz_py(&p2, c->b[k]);
            tz_buf_printf(&s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", x0, ya, w,
                          p2.y + p2.h - ya, tz_svg_color(0));
            tz_buf_printf(&s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", x0 + w, yb, w,
                          p2.y + p2.h - yb, tz_svg_color(1));
        }
    }
    tz_svg_end(&s);
    int rc = tz_write_file(path, &s, err);
    tz_buf_free(&s);
    return rc;
}

static const char *slicing_name(const traza_corr_opts *o, char *buf, size_t size)
{
    if (o->slicing == TRAZA_SLICES_COUNT)
        snprintf(buf, size, "%zu", o->slices);
    else
        snprintf(buf, size, "%s", o->slicing == TRAZA_SLICES_PAPER ? "paper" : "auto");
    return buf;
}

/* The filter options of the call as text (tz_filter_conditions_text) in buf. */
static const char *filter_text(const traza_tool_call *call, const char *sep, char *buf, size_t size)
{
    tz_buf b;
    tz_buf_init(&b);
    tz_filter_conditions_text(call, sep, &b);
    snprintf(buf, size, "%s", b.s && !b.oom ? b.s : "");
    tz_buf_free(&b);
    return buf;
}

static int run_rank(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const traza_series *target,
                    const traza_corr_opts *o, size_t top, traza_warnings *warn, traza_err *err)
{
    traza_rank_entry *r;
    size_t n;
    traza_corr_method m = o->method;
    int64_t delta = o->delta;
    char sl[32];
    if (traza_correlate_rank(t, target, o, NULL, NULL, &r, &n, warn, err) < 0)
        return -1;
    int rc = -1;
    traza_annotation *ann = calloc(n ? n : 1, sizeof *ann);
    char **keys = calloc(n ? n : 1, sizeof *keys);
    tz_buf b;
    tz_buf_init(&b);
    if (!ann || !keys) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    char path[1024], name[600], params[800], fbuf[256], fbuf2[256];
    for (size_t i = 0; i < n; i++) {
        const traza_event_type *ty = traza_trace_event_type(t, r[i].type);
        traza_trace_producer_path(t, r[i].producer, path, sizeof path);
        keys[i] = tz_asprintf("%s@%s", ty ? ty->name : "?", path);
        if (!keys[i]) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto done;
        }
        ann[i].key = keys[i];
        ann[i].value.kind = TRAZA_PT_DOUBLE;
        ann[i].value.d = r[i].r;
    }
    const char *save = tz_targ(tool, call, "save");
    /* a default name tells the inputs that shape the result: the series, and the
     * method when it is not the default */
    const char *msuffix = m == TRAZA_CORR_IRREGULAR ? ":irregular" : "";
    if (save)
        snprintf(name, sizeof name, "%s", save);
    else
        snprintf(name, sizeof name, "rank:%s%s%.200s", target->name, msuffix, filter_text(call, ":", fbuf, sizeof fbuf));
    snprintf(params, sizeof params, "series=%s method=%s delta=%lld slices=%s rank=1%.200s", target->name,
             m == TRAZA_CORR_REGULAR ? "regular" : "irregular", (long long)delta, slicing_name(o, sl, sizeof sl),
             filter_text(call, " ", fbuf2, sizeof fbuf2));
    char inputs[600];
    traza_result_meta meta = {name, tool->name, params, tz_targ_bool(tool, call, "replace"),
                              tz_result_inputs(t, target->name, NULL, inputs, sizeof inputs)};
    if (traza_result_save_annotations(t, &meta, ann, n, err) < 0)
        goto done;
    if (call->json) {
        tz_buf_puts(&b, "{\"ranking\": [");
        for (size_t i = 0; i < n; i++) {
            const traza_event_type *ty = traza_trace_event_type(t, r[i].type);
            traza_trace_producer_path(t, r[i].producer, path, sizeof path);
            tz_buf_puts(&b, i ? ", {\"type\": " : "{\"type\": ");
            tz_json_str(&b, ty ? ty->name : "?");
            tz_buf_puts(&b, ", \"producer\": ");
            tz_json_str(&b, path);
            tz_buf_puts(&b, ", \"r\": ");
            tz_json_num(&b, r[i].r);
            tz_buf_putc(&b, '}');
        }
        tz_buf_putc(&b, ']');
        tz_json_warnings(&b, warn);
        tz_buf_puts(&b, "}\n");
    } else {
        size_t show = top < n ? top : n;
        tz_buf_printf(&b, "probable causes of %s (%zu events), %s correlation, saved as '%s'\n", target->name, target->n,
                      m == TRAZA_CORR_REGULAR ? "regular" : "irregular", name);
        tz_buf_printf(&b, "%4s %8s %10s  %s\n", "rank", "r", "events", "series");
        for (size_t i = 0; i < show; i++)
            tz_buf_printf(&b, "%4zu %8.4f %10zu  %s%s\n", i + 1, r[i].r, r[i].n, keys[i], fabs(r[i].r) >= 0.5 ? "  (strong)" : "");
        if (show < n)
            tz_buf_printf(&b, "... %zu more\n", n - show);
    }
    if (b.oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    traza_tool_printf(call, "%s", b.s ? b.s : "");
    tz_warnings_show(call, warn);
    rc = 0;
done:
    tz_buf_free(&b);
    if (keys)
        for (size_t i = 0; i < n; i++)
            free(keys[i]);
    free(keys);
    free(ann);
    free(r);
    return rc;
}

static int run_pair(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const traza_series *a,
                    const traza_corr_opts *opts, traza_warnings *warn, traza_err *err)
{
    const char *with = tz_targ(tool, call, "with");
    traza_series b;
    if (traza_series_load(t, with, 0, opts->within, NULL, NULL, &b, err) < 0)
        return -1;
    traza_corr c;
    traza_corr_opts co = *opts;
    traza_corr_method m = co.method;
    co.name_a = a->name;
    co.name_b = b.name;
    char sl[32];
    if (traza_correlate_opts(a->ts, a->n, b.ts, b.n, &co, &c, err) < 0) {
        traza_series_free(&b);
        return -1;
    }
    tz_warnings_merge(warn, &c.warn);
    int rc = -1;
    char name[1024], params[1200], fbuf[256], fbuf2[256];
    const char *save = tz_targ(tool, call, "save");
    if (save)
        snprintf(name, sizeof name, "%s", save);
    else
        snprintf(name, sizeof name, "correlation:%s~%s%s%.200s", a->name, b.name, m == TRAZA_CORR_IRREGULAR ? ":irregular" : "",
                 filter_text(call, ":", fbuf, sizeof fbuf));
    snprintf(params, sizeof params, "series=%s with=%s method=%s delta=%lld slices=%s%.200s", a->name, b.name,
             m == TRAZA_CORR_REGULAR ? "regular" : "irregular", (long long)c.delta, slicing_name(&co, sl, sizeof sl),
             filter_text(call, " ", fbuf2, sizeof fbuf2));
    traza_annotation ann[3];
    memset(ann, 0, sizeof ann);
    ann[0].key = "r";
    ann[0].value.kind = TRAZA_PT_DOUBLE;
    ann[0].value.d = c.r;
    ann[0].has_range = 1;
    ann[0].from = c.t0;
    ann[0].to = c.t1;
    ann[1].key = "bins";
    ann[1].value.kind = TRAZA_PT_INT;
    ann[1].value.i = (int64_t)c.nbins;
    ann[2].key = "delta";
    ann[2].value.kind = TRAZA_PT_INT;
    ann[2].value.i = c.delta;
    char inputs[600];
    traza_result_meta meta = {name, tool->name, params, tz_targ_bool(tool, call, "replace"),
                              tz_result_inputs(t, a->name, b.name, inputs, sizeof inputs)};
    if (traza_result_save_annotations(t, &meta, ann, m == TRAZA_CORR_IRREGULAR ? 3 : 2, err) < 0)
        goto done;
    tz_buf o;
    tz_buf_init(&o);
    if (call->json) {
        tz_buf_puts(&o, "{\"series\": ");
        tz_json_str(&o, a->name);
        tz_buf_puts(&o, ", \"with\": ");
        tz_json_str(&o, b.name);
        tz_buf_printf(&o, ", \"method\": \"%s\", \"r\": ", m == TRAZA_CORR_REGULAR ? "regular" : "irregular");
        tz_json_num(&o, c.r);
        tz_buf_printf(&o, ", \"strong\": %s, \"bins\": %zu, \"delta\": %lld", c.strong ? "true" : "false", c.nbins,
                      (long long)c.delta);
        tz_json_warnings(&o, warn);
        tz_buf_puts(&o, "}\n");
    } else {
        tz_buf_printf(&o, "%s (%zu events) vs %s (%zu events)\n", a->name, a->n, b.name, b.n);
        if (m == TRAZA_CORR_REGULAR)
            tz_buf_printf(&o, "regular: %zu slices of [%lld, %lld] (%s: width %lld)\n", c.nbins, (long long)c.t0,
                          (long long)c.t1, slicing_name(&co, sl, sizeof sl), (long long)(c.to[0] - c.from[0]));
        else
            tz_buf_printf(&o, "irregular: %zu intervals, delta %lld around the %zu points of %s (densities per tick)\n",
                          c.nbins, (long long)c.delta, c.swapped ? b.n : a->n, c.swapped ? b.name : a->name);
        tz_buf_printf(&o, "r = %.4f%s, saved as '%s'\n", c.r, c.strong ? " (strong: |r| >= 0.5)" : "", name);
    }
    traza_tool_printf(call, "%s", o.s ? o.s : "");
    tz_buf_free(&o);
    tz_warnings_show(call, warn);
    const char *svg = tz_targ(tool, call, "svg");
    if (svg && draw(svg, a, &b, &c, err) < 0)
        goto done;
    rc = 0;
done:
    traza_corr_free(&c);
    traza_series_free(&b);
    return rc;
}

/* --slices: auto, paper or a count in range. */
static int parse_slices(const char *v, traza_corr_opts *o, traza_err *err)
{
    if (!strcmp(v, "auto")) {
        o->slicing = TRAZA_SLICES_AUTO;
        return 0;
    }
    if (!strcmp(v, "paper")) {
        o->slicing = TRAZA_SLICES_PAPER;
        return 0;
    }
    int64_t n;
    if (tz_parse_i64(v, strlen(v), &n) < 0 || n < TRAZA_CORR_MIN_SLICES || n > TRAZA_CORR_MAX_SLICES)
        return traza_err_set(err, TRAZA_E_USAGE, "option 'slices' must be auto, paper or a count from %d to %d, not '%s'",
                             TRAZA_CORR_MIN_SLICES, TRAZA_CORR_MAX_SLICES, v);
    o->slicing = TRAZA_SLICES_COUNT;
    o->slices = (size_t)n;
    return 0;
}

/* --top: N >= 1 or all. */
static int parse_top(const char *v, size_t *top, traza_err *err)
{
    int64_t n;
    if (!strcmp(v, "all")) {
        *top = SIZE_MAX;
        return 0;
    }
    if (tz_parse_i64(v, strlen(v), &n) < 0 || n < 1)
        return traza_err_set(err, TRAZA_E_USAGE, "option 'top' must be a count of at least 1, or all, not '%s'", v);
    *top = (size_t)n;
    return 0;
}

static int run_correlate(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    const char *ms = tz_targ(tool, call, "method");
    traza_corr_opts opts = {TRAZA_CORR_REGULAR, 0, TRAZA_SLICES_AUTO, 0, NULL, NULL, NULL};
    if (!strcmp(ms, "regular"))
        opts.method = TRAZA_CORR_REGULAR;
    else if (!strcmp(ms, "irregular"))
        opts.method = TRAZA_CORR_IRREGULAR;
    else
        return traza_err_set(err, TRAZA_E_USAGE, "option 'method' must be regular or irregular, not '%s'", ms);
    size_t top = 20;
    int metric, rule;
    double k;
    if (parse_slices(tz_targ(tool, call, "slices"), &opts, err) < 0 || parse_top(tz_targ(tool, call, "top"), &top, err) < 0 ||
        tz_anomaly_opts(tool, call, &metric, &rule, &k, err) < 0)
        return -1;
    int rank = tz_targ_bool(tool, call, "rank");
    const char *of = tz_targ(tool, call, "anomalies-of");
    if (!rank && !tz_targ(tool, call, "with"))
        return traza_err_set(err, TRAZA_E_USAGE, "give option 'with' SERIES, or option 'rank'");
    if (!of && !tz_targ(tool, call, "series"))
        return traza_err_set(err, TRAZA_E_USAGE, "give option 'series' SERIES (or option 'anomalies-of' TYPE)");
    traza_trace *t = traza_trace_open(call->ws, call->trace, TRAZA_OPEN_WRITE, err);
    if (!t)
        return -1;
    int rc = -1;
    traza_warnings warn;
    memset(&warn, 0, sizeof warn);
    traza_series a;
    memset(&a, 0, sizeof a);
    /* every series read (the first, the second, the candidates) keeps the filter's events */
    tz_filter_args tf;
    tz_filter_args_init(&tf);
    tf.conditions_only = 1;
    if (tz_filter_args_read(tool, call, t, NULL, 0, &tf, err) < 0)
        goto done;
    opts.within = &tf.f;
    int hd = tz_targ_time(tool, call, t, "delta", &opts.delta, err);
    if (hd < 0)
        goto done;
    if (hd > 0 && opts.delta <= 0) {
        traza_err_set(err, TRAZA_E_USAGE, "option 'delta' must be a positive duration, not '%s'", tz_targ(tool, call, "delta"));
        goto done;
    }
    if (of) {
        char spec[300];
        if (tz_series_spec(tool, call, "anomalies-of", spec, sizeof spec, err) < 0 ||
            tz_anomaly_run(tool, call, t, spec, 0, 0, &a, &warn, err) < 0)
            goto done;
        if (!call->json)
            traza_tool_printf(call, "%zu anomalies of %s (rule %s), saved as event set '%s'\n", a.n, spec,
                              tz_targ(tool, call, "rule"), a.name);
        if (a.n == 0) {
            tz_warnings_show(call, &warn);
            traza_err_set(err, TRAZA_E_USAGE, "no anomalies of %s with rule %s: nothing to correlate", spec, tz_targ(tool, call, "rule"));
            goto done;
        }
    } else if (traza_series_load(t, tz_targ(tool, call, "series"), tz_targ_bool(tool, call, "subtree"), opts.within, NULL, NULL, &a, err) < 0) {
        goto done;
    }
    rc = rank ? run_rank(tool, call, t, &a, &opts, top, &warn, err) : run_pair(tool, call, t, &a, &opts, &warn, err);
done:
    tz_filter_args_free(&tf);
    traza_series_free(&a);
    traza_trace_close(t);
    return rc;
}

const traza_tool tz_tool_correlate = {
    "correlate", "temporal correlation of two series, or ranking of the probable causes of a series",
    TRAZA_TOOL_ANALYSIS, correlate_opts, sizeof correlate_opts / sizeof correlate_opts[0], run_correlate, NULL, "builtin",
};
