/* The "anomaly" tool: events whose duration or period falls outside the interval
 * of a rule (ci99, sigma, mad); saved as an event set. */
#include "analysis/tool_util.h"
#include "tools/tool_filter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const traza_tool_option anomaly_opts[] = {
    {"type", TRAZA_OPT_STRING, NULL, "event type of the series (or TYPE@PRODUCER)", 0, 0},
    {"producer", TRAZA_OPT_STRING, NULL, "only this producer (name or path)", 0, 0},
    {"subtree", TRAZA_OPT_BOOL, "false", "with option 'producer': include its descendants", 0, 0},
    {"series", TRAZA_OPT_STRING, NULL, "a series: TYPE, TYPE@PRODUCER or a saved event set", 0, 0},
    {"metric", TRAZA_OPT_STRING, "duration", "duration or period", 0, 0},
    {"rule", TRAZA_OPT_STRING, "mad", "mad (median +- k MAD), sigma (mean +- k sigma), ci99 (mean +- 3 sigma/sqrt n)", 0, 0},
    {"k", TRAZA_OPT_DOUBLE, "3", "factor of the sigma and mad rules", 0, 0},
    {"save", TRAZA_OPT_STRING, NULL, "name of the saved event set (default anomalies:SERIES:METRIC)", 0, 0},
    TZ_OPT_REPLACE,
    {"svg", TRAZA_OPT_STRING, NULL, "draw the series and the metric with the interval into this file", 0, 0},
    TZ_FILTER_CONDITION_OPTIONS,
};

int tz_series_spec(const traza_tool *tool, const traza_tool_call *call, const char *type_opt, char *buf, size_t size, traza_err *err)
{
    const char *type = type_opt ? tz_targ(tool, call, type_opt) : NULL;
    const char *series = tz_targ(tool, call, "series");
    const char *prod = tz_targ(tool, call, "producer");
    if (!type && !series)
        return traza_err_set(err, TRAZA_E_USAGE, "give the series with --%s TYPE", type_opt ? type_opt : "series");
    const char *base = type ? type : series;
    int n = prod ? snprintf(buf, size, "%s@%s", base, prod) : snprintf(buf, size, "%s", base);
    if (n < 0 || (size_t)n >= size)
        return traza_err_set(err, TRAZA_E_USAGE, "series name too long");
    return 0;
}

void tz_svg_series(tz_buf *b, const tz_plot *p, const int64_t *ts, size_t n, const unsigned char *mark, const char *color)
{
    size_t stride = n > 4000 ? n / 4000 + 1 : 1;
    tz_buf_printf(b, "<g fill=\"%s\">\n", color);
    for (size_t i = 0; i < n; i++)
        if (i % stride == 0 && !(mark && mark[i]))
            tz_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.5\"/>\n", tz_px(p, (double)ts[i]), tz_py(p, (double)i));
    tz_buf_puts(b, "</g>\n");
    if (mark) {
        tz_buf_puts(b, "<g fill=\"#d62728\">\n");
        for (size_t i = 0; i < n; i++)
            if (mark[i])
                tz_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>\n", tz_px(p, (double)ts[i]), tz_py(p, (double)i));
        tz_buf_puts(b, "</g>\n");
    }
}

static int draw(const char *path, const traza_series *s, const traza_anomalies *a, traza_err *err)
{
    tz_buf b;
    tz_buf_init(&b);
    unsigned char *mark = calloc(s->n ? s->n : 1, 1);
    if (!mark)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < a->n; i++)
        mark[a->index[i]] = 1;
    char title[400];
    snprintf(title, sizeof title, "anomalies of %s (%s, rule %s)", s->name, traza_metric_name(a->metric), traza_rule_name(a->rule));
    tz_svg_begin(&b, 900, 640, title);
    double t0 = s->n ? (double)s->ts[0] : 0, t1 = s->n ? (double)s->ts[s->n - 1] : 1;
    tz_plot p1 = {70, 40, 800, 220, t0, t1, 0, s->n > 1 ? (double)(s->n - 1) : 1};
    tz_svg_frame(&b, &p1, title, "timestamp", "event index");
    tz_svg_series(&b, &p1, s->ts, s->n, mark, "#4e79a7");
    /* The metric over time with the interval. */
    size_t first = a->metric == TRAZA_METRIC_PERIOD ? 1 : 0;
    double vmin = a->lo, vmax = a->hi;
    for (size_t i = first; i < s->n; i++) {
        double v = a->metric == TRAZA_METRIC_PERIOD ? (double)(s->ts[i] - s->ts[i - 1]) : (double)(s->end[i] - s->ts[i]);
        if (v < vmin) vmin = v;
        if (v > vmax) vmax = v;
    }
    tz_plot p2 = {70, 340, 800, 240, t0, t1, vmin, vmax > vmin ? vmax : vmin + 1};
    tz_svg_frame(&b, &p2, "metric and interval of normal values", "timestamp", traza_metric_name(a->metric));
    double ylo = tz_py(&p2, a->hi), yhi = tz_py(&p2, a->lo);
    tz_buf_printf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#59a14f\" fill-opacity=\"0.2\"/>\n",
                  p2.x, ylo, p2.w, yhi - ylo > 0 ? yhi - ylo : 1);
    size_t stride = s->n > 4000 ? s->n / 4000 + 1 : 1;
    for (size_t i = first; i < s->n; i++) {
        if (i % stride && !mark[i])
            continue;
        double v = a->metric == TRAZA_METRIC_PERIOD ? (double)(s->ts[i] - s->ts[i - 1]) : (double)(s->end[i] - s->ts[i]);
        tz_buf_printf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"/>\n", tz_px(&p2, (double)s->ts[i]), tz_py(&p2, v),
                      mark[i] ? "2.5" : "1.5", mark[i] ? "#d62728" : "#4e79a7");
    }
    tz_svg_end(&b);
    free(mark);
    int rc = tz_write_file(path, &b, err);
    tz_buf_free(&b);
    return rc;
}

int tz_anomaly_opts(const traza_tool *tool, const traza_tool_call *call, int *metric, int *rule, double *k, traza_err *err)
{
    *metric = traza_metric_parse(tz_targ(tool, call, "metric"));
    *rule = traza_rule_parse(tz_targ(tool, call, "rule"));
    if (*metric < 0)
        return traza_err_set(err, TRAZA_E_USAGE, "option 'metric' must be duration or period, not '%s'", tz_targ(tool, call, "metric"));
    if (*rule < 0)
        return traza_err_set(err, TRAZA_E_USAGE, "option 'rule' must be mad, sigma or ci99, not '%s'", tz_targ(tool, call, "rule"));
    *k = tz_targ_double(tool, call, "k", 3.0);
    if (!(*k > 0) || !isfinite(*k))
        return traza_err_set(err, TRAZA_E_USAGE, "option 'k' must be a positive number, not '%s'", tz_targ(tool, call, "k"));
    return 0;
}

int tz_anomaly_run(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const char *spec, int print,
                   int drawit, traza_series *anom, traza_warnings *warn, traza_err *err)
{
    int metric, rule;
    double k;
    if (tz_anomaly_opts(tool, call, &metric, &rule, &k, err) < 0)
        return -1;
    /* the series' events are those of the filter options too */
    tz_filter_args tf;
    tz_filter_args_init(&tf);
    tf.conditions_only = 1;
    traza_series s;
    memset(&s, 0, sizeof s);
    traza_anomalies a;
    memset(&a, 0, sizeof a);
    int rc = -1;
    tz_buf ftext, fparams;
    tz_buf_init(&ftext);
    tz_buf_init(&fparams);
    if (tz_filter_args_read(tool, call, t, NULL, 0, &tf, err) < 0 ||
        traza_series_load(t, spec, tz_targ_bool(tool, call, "subtree"), &tf.f, NULL, NULL, &s, err) < 0) {
        tz_filter_args_free(&tf);
        return -1;
    }
    tz_filter_args_free(&tf);
    if (traza_anomaly_detect(&s, (traza_metric)metric, (traza_rule)rule, k, &a, err) < 0) {
        traza_series_free(&s);
        return -1;
    }
    tz_filter_conditions_text(call, ":", &ftext);
    tz_filter_conditions_text(call, " ", &fparams);
    int64_t *ids = malloc((a.n ? a.n : 1) * sizeof *ids), *tss = malloc((a.n ? a.n : 1) * sizeof *tss);
    char name[400], params[512];
    if (!ids || !tss || ftext.oom || fparams.oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < a.n; i++) {
        ids[i] = s.id[a.index[i]];
        tss[i] = s.ts[a.index[i]];
    }
    const char *save = tz_targ(tool, call, "save");
    if (save)
        snprintf(name, sizeof name, "%s", save);
    else /* a filtered series is told from the whole one by the filter's options */
        snprintf(name, sizeof name, "anomalies:%s:%s%.200s", spec, traza_metric_name((traza_metric)metric), ftext.s ? ftext.s : "");
    snprintf(params, sizeof params, "series=%s subtree=%d metric=%s rule=%s k=%g%.200s", spec, tz_targ_bool(tool, call, "subtree"),
             traza_metric_name((traza_metric)metric), traza_rule_name((traza_rule)rule), a.k, fparams.s ? fparams.s : "");
    /* made by the anomaly analysis whichever tool ran it (correlate --anomalies-of too),
     * so that the same detection run again by either finds its own result */
    char inputs[400];
    traza_result_meta meta = {name, "anomaly", params, tz_targ_bool(tool, call, "replace"),
                              tz_result_inputs(t, spec, NULL, inputs, sizeof inputs)};
    if (traza_result_save_events(t, &meta, ids, a.n, err) < 0)
        goto done;
    if (print) {
        tz_buf b;
        tz_buf_init(&b);
        if (call->json) {
            tz_buf_puts(&b, "{\"rule\": ");
            tz_json_str(&b, traza_rule_name(a.rule));
            tz_buf_puts(&b, ", \"interval\": [");
            tz_json_num(&b, a.lo);
            tz_buf_puts(&b, ", ");
            tz_json_num(&b, a.hi);
            tz_buf_puts(&b, "], \"anomalies\": [");
            for (size_t i = 0; i < a.n; i++) {
                tz_buf_printf(&b, "%s{\"id\": %lld, \"ts\": %lld, \"value\": ", i ? ", " : "", (long long)ids[i], (long long)tss[i]);
                tz_json_num(&b, a.value[i]);
                tz_buf_putc(&b, '}');
            }
            tz_buf_putc(&b, ']');
            tz_json_warnings(&b, &a.warn);
            tz_buf_puts(&b, "}\n");
        } else {
            static const char *const desc[] = {"99% confidence interval of the mean: mean +- 3 sigma / sqrt(n)",
                                               "mean +- k sigma", "median +- k MAD"};
            tz_buf_printf(&b, "rule %s (", traza_rule_name(a.rule));
            tz_buf_puts(&b, desc[a.rule]);
            tz_buf_printf(&b, "), k = %g\n", a.k);
            tz_buf_printf(&b, "series %s, metric %s: %s %.6g, %s %.6g over %zu values\n", spec, traza_metric_name(a.metric),
                          a.rule == TRAZA_RULE_MAD ? "median" : "mean", a.center, a.rule == TRAZA_RULE_MAD ? "MAD" : "sigma",
                          a.spread, a.nvalues);
            tz_buf_printf(&b, "interval [%.6g, %.6g]\n%zu anomalies, saved as event set '%s'\n", a.lo, a.hi, a.n, name);
            size_t show = a.n < 20 ? a.n : 20;
            if (show)
                tz_buf_printf(&b, "%12s %20s %14s\n", "id", "ts", "value");
            for (size_t i = 0; i < show; i++)
                tz_buf_printf(&b, "%12lld %20lld %14.6g\n", (long long)ids[i], (long long)tss[i], a.value[i]);
            if (a.n > show)
                tz_buf_printf(&b, "... %zu more\n", a.n - show);
        }
        if (b.oom) {
            tz_buf_free(&b);
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto done;
        }
        traza_tool_printf(call, "%s", b.s ? b.s : "");
        tz_buf_free(&b);
        tz_warnings_show(call, &a.warn);
    }
    if (warn)
        tz_warnings_merge(warn, &a.warn);
    const char *svg = tz_targ(tool, call, "svg");
    if (drawit && svg && draw(svg, &s, &a, err) < 0)
        goto done;
    if (anom) {
        memset(anom, 0, sizeof *anom);
        anom->id = ids;
        anom->ts = tss;
        anom->n = a.n;
        anom->end = malloc((a.n ? a.n : 1) * sizeof *anom->end);
        anom->type = calloc(a.n ? a.n : 1, sizeof *anom->type);
        anom->producer = calloc(a.n ? a.n : 1, sizeof *anom->producer);
        ids = tss = NULL;
        size_t nl = strlen(name) < sizeof anom->name ? strlen(name) : sizeof anom->name - 1;
        memcpy(anom->name, name, nl);
        anom->name[nl] = '\0';
        if (!anom->end || !anom->type || !anom->producer) {
            traza_series_free(anom);
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto done;
        }
        memcpy(anom->end, anom->ts, a.n * sizeof *anom->end);
    }
    rc = 0;
done:
    tz_buf_free(&ftext);
    tz_buf_free(&fparams);
    free(ids);
    free(tss);
    traza_anomalies_free(&a);
    traza_series_free(&s);
    return rc;
}

static int run_anomaly(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    char spec[300];
    if (tz_series_spec(tool, call, "type", spec, sizeof spec, err) < 0)
        return -1;
    traza_trace *t = traza_trace_open(call->ws, call->trace, TRAZA_OPEN_WRITE, err);
    if (!t)
        return -1;
    int rc = tz_anomaly_run(tool, call, t, spec, 1, 1, NULL, NULL, err);
    traza_trace_close(t);
    return rc;
}

const traza_tool tz_tool_anomaly = {
    "anomaly", "events whose duration or period falls outside a rule's interval (saved as an event set)",
    TRAZA_TOOL_ANALYSIS, anomaly_opts, sizeof anomaly_opts / sizeof anomaly_opts[0], run_anomaly, NULL, "builtin",
};
