/* /api/aggregate, /api/anomaly, /api/correlate: the analysis views. Answers are
 * bounded: at most TZ_API_MAX_AGG_SLICES slices, TZ_API_MAX_POINTS series points
 * (evenly sampled beyond) and TZ_API_MAX_LIST ranked causes. */
#include "server/api_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tz_api_aggregate(tz_req *r)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    const traza_trace_info *info = traza_trace_info_of(t);
    int64_t slices, from, to, norm;
    double thr;
    if (tz_arg_clamp(r, "slices", 1, TZ_API_MAX_AGG_SLICES, 30, &slices) < 0 ||
        tz_arg_i64(r, "from", INT64_MIN, INT64_MAX, info->min_ts, &from) < 0 ||
        tz_arg_i64(r, "to", INT64_MIN, INT64_MAX, info->max_ts, &to) < 0 ||
        tz_arg_double(r, "threshold", 1e-6, 0.5, 0.001, &thr) < 0 ||
        tz_arg_i64(r, "normalize", 0, 1, 0, &norm) < 0)
        return -1;
    if (to <= from)
        return tz_fail(r, 400, "the window [%lld, %lld] is empty", (long long)from, (long long)to);
    const char *ms = tz_arg_str(r, "model");
    int model = traza_agg_model_parse(ms ? ms : "occurrences");
    if (model < 0)
        return tz_fail(r, 400, "parameter 'model': occurrences, duration, avg-duration or avg-value, not '%.32s'", ms);
    traza_agg_micro m;
    traza_agg_quality q;
    memset(&m, 0, sizeof m);
    memset(&q, 0, sizeof q);
    traza_agg_pentry *l = NULL;
    size_t nl = 0, prop = 0;
    int sampled = 0, partial = 0;
    int brc = tz_agg_micro_bounded(r, t, from, to, (size_t)slices, model, &m, &sampled, &partial);
    if (brc == -2)
        return -1; /* a 400 already */
    if (brc < 0)
        return tz_fail_err(r, &r->err);
    if (m.nseries == 0) {
        traza_agg_micro_free(&m);
        if (partial)
            return tz_fail(r, 503, "the time budget ran out before any event of the window was read: retry with a larger budget=");
        return tz_fail(r, 422, "no events in the window: nothing to aggregate");
    }
    /* the CLI's rule: the values as measured unless normalize=1 (--normalize) */
    if (norm)
        traza_agg_micro_normalize(&m);
    if (traza_agg_qualities(&m, &q, &r->err) < 0 || traza_agg_plist(&q, thr, &l, &nl, &prop, &r->err) < 0) {
        traza_agg_quality_free(&q);
        traza_agg_micro_free(&m);
        return tz_fail_err(r, &r->err);
    }
    const traza_event_type *types;
    size_t nt = traza_trace_event_types(t, &types);
    double *ts = calloc(nt * m.nslices + 1, sizeof *ts);
    tz_buf b;
    tz_buf_init(&b);
    if (!ts)
        b.oom = 1;
    for (size_t s = 0; ts && s < m.nseries; s++)
        if (m.type[s] >= 0 && (size_t)m.type[s] < nt)
            for (size_t k = 0; k < m.nslices; k++)
                ts[(size_t)m.type[s] * m.nslices + k] += m.v[s * m.nslices + k];
    tz_buf_printf(&b, "{\"sampled\":%s,\"partial\":%s,", sampled ? "true" : "false", partial ? "true" : "false");
    tz_buf_puts(&b, "\"t0\":");
    tz_json_tick(r, &b, m.t0);
    tz_buf_puts(&b, ",\"t1\":");
    tz_json_tick(r, &b, m.t1);
    tz_buf_printf(&b, ",\"slices\":%zu,\"model\":\"%s\",\"series\":%zu,\"proposed\":%zu,\"types\":[", m.nslices, traza_agg_model_name((traza_agg_model)model), m.nseries, prop);
    int first = 1;
    for (size_t i = 0; ts && i < nt; i++) {
        double sum = 0;
        for (size_t k = 0; k < m.nslices; k++)
            sum += ts[i * m.nslices + k];
        if (sum <= 0)
            continue;
        tz_buf_printf(&b, "%s{\"id\":%zu,\"name\":", first ? "" : ",", i);
        first = 0;
        tz_json_str(&b, types[i].name);
        tz_buf_puts(&b, ",\"color\":");
        tz_json_color(&b, types[i].name, types[i].color);
        tz_buf_puts(&b, ",\"values\":[");
        for (size_t k = 0; k < m.nslices; k++) {
            if (k) tz_buf_putc(&b, ',');
            tz_json_num(&b, ts[i * m.nslices + k]);
        }
        tz_buf_puts(&b, "]}");
    }
    tz_buf_puts(&b, "],\"p_list\":[");
    size_t step = nl > TZ_API_MAX_LIST ? (nl + TZ_API_MAX_LIST - 1) / TZ_API_MAX_LIST : 1;
    first = 1;
    for (size_t i = 0; i < nl; i++) {
        if (i % step && i != prop)
            continue;
        tz_buf_puts(&b, first ? "{\"p\":" : ",{\"p\":");
        first = 0;
        tz_json_num(&b, l[i].p);
        tz_buf_puts(&b, ",\"gain\":");
        tz_json_num(&b, l[i].gain);
        tz_buf_puts(&b, ",\"loss\":");
        tz_json_num(&b, l[i].loss);
        tz_buf_printf(&b, ",\"nparts\":%zu,\"parts\":[", l[i].nparts);
        for (size_t k = 0; k < m.nslices; k++)
            tz_buf_printf(&b, "%s%d", k ? "," : "", l[i].parts[k]);
        tz_buf_puts(&b, "]}");
    }
    tz_buf_puts(&b, "]}");
    free(ts);
    traza_agg_plist_free(l, nl);
    traza_agg_quality_free(&q);
    traza_agg_micro_free(&m);
    return tz_send_json(r, &b);
}

/* 503 when the budget ran out before anything meaningful was computed. */
static int fail_budget(tz_req *r, const char *what, const char *detail)
{
    return tz_fail(r, 503, "the time budget ran out before %s (%s): retry with a larger budget= (at most %d ms)", what, detail,
                   TZ_API_MAX_BUDGET);
}

static void json_partial(const tz_req *r, tz_buf *b, const traza_partial *pi)
{
    tz_buf_printf(b, "\"partial\":%s", pi->partial ? "true" : "false");
    if (pi->partial && pi->covered_to != INT64_MIN) {
        tz_buf_puts(b, ",\"covered_to\":");
        tz_json_tick(r, b, pi->covered_to);
    }
}

static int load_series(tz_req *r, traza_trace *t, const traza_stop *stop, traza_partial *pi, traza_series *s)
{
    const char *spec = tz_arg_str(r, "series");
    if (!spec || !*spec)
        return tz_fail(r, 400, "missing parameter 'series' (TYPE, TYPE@PRODUCER or a saved event set)");
    int64_t sub;
    if (tz_arg_i64(r, "subtree", 0, 1, 1, &sub) < 0)
        return -1;
    memset(s, 0, sizeof *s);
    if (traza_series_load(t, spec, (int)sub, 0, stop, pi, s, &r->err) < 0)
        return tz_fail_err(r, &r->err);
    if (pi->partial && s->n == 0) {
        traza_series_free(s);
        return fail_budget(r, "any event of the series was read", spec);
    }
    return 0;
}

/* The anomaly rule of the request: metric (duration), rule (mad), k (3), the
 * defaults of the anomaly and correlate tools (src/analysis/tool_anomaly.c). */
static int parse_detection(tz_req *r, int *metric, int *rule, double *k)
{
    const char *ms = tz_arg_str(r, "metric"), *rs = tz_arg_str(r, "rule");
    *metric = traza_metric_parse(ms ? ms : "duration");
    *rule = traza_rule_parse(rs ? rs : "mad");
    if (*metric < 0)
        return tz_fail(r, 400, "parameter 'metric': duration or period, not '%.32s'", ms);
    if (*rule < 0)
        return tz_fail(r, 400, "parameter 'rule': mad, sigma or ci99, not '%.32s'", rs);
    return tz_arg_double(r, "k", 0.1, 100, 3, k) < 0 ? -1 : 0;
}

/* The anomalies of TYPE (anomalies_of=TYPE, producer=P, subtree=0|1 (default 0),
 * metric, rule, k) as a series in time order, as `traza correlate --anomalies-of`
 * ranks them: the ids and start times of the anomalous events. Nothing is saved. */
static int load_anomalies(tz_req *r, traza_trace *t, const char *type, const traza_stop *stop, traza_partial *pi,
                          traza_series *out)
{
    int metric, rule;
    double k;
    int64_t sub;
    if (parse_detection(r, &metric, &rule, &k) < 0 || tz_arg_i64(r, "subtree", 0, 1, 0, &sub) < 0)
        return -1;
    const char *prod = tz_arg_str(r, "producer");
    char spec[600];
    snprintf(spec, sizeof spec, prod && *prod ? "%.280s@%.280s" : "%.280s", type, prod);
    traza_series s;
    memset(&s, 0, sizeof s);
    if (traza_series_load(t, spec, (int)sub, 0, stop, pi, &s, &r->err) < 0)
        return tz_fail_err(r, &r->err);
    if (pi->partial && s.n == 0) {
        traza_series_free(&s);
        return fail_budget(r, "any event of the series was read", spec);
    }
    traza_anomalies a;
    memset(&a, 0, sizeof a);
    if (traza_anomaly_detect(&s, (traza_metric)metric, (traza_rule)rule, k, &a, &r->err) < 0) {
        traza_series_free(&s);
        return tz_fail_err(r, &r->err);
    }
    if (a.n == 0) {
        traza_anomalies_free(&a);
        traza_series_free(&s);
        return tz_fail(r, 422, "no anomalies of %s with rule %s: nothing to correlate", spec, traza_rule_name((traza_rule)rule));
    }
    memset(out, 0, sizeof *out);
    size_t n = a.n;
    out->id = malloc(n * sizeof *out->id);
    out->ts = malloc(n * sizeof *out->ts);
    out->end = malloc(n * sizeof *out->end);
    out->type = malloc(n * sizeof *out->type);
    out->producer = malloc(n * sizeof *out->producer);
    if (!out->id || !out->ts || !out->end || !out->type || !out->producer) {
        traza_series_free(out);
        traza_anomalies_free(&a);
        traza_series_free(&s);
        return tz_fail(r, 500, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        size_t ix = a.index[i];
        out->id[i] = s.id[ix];
        out->ts[i] = out->end[i] = s.ts[ix];
        out->type[i] = s.type[ix];
        out->producer[i] = s.producer[ix];
    }
    out->n = n;
    snprintf(out->name, sizeof out->name, "anomalies:%.200s:%s", spec, traza_metric_name((traza_metric)metric));
    traza_anomalies_free(&a);
    traza_series_free(&s);
    return 0;
}

int tz_api_anomaly(tz_req *r)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    int metric, rule;
    double k;
    if (parse_detection(r, &metric, &rule, &k) < 0)
        return -1;
    tz_budget_stop bs;
    traza_stop stop;
    traza_partial pi;
    tz_budget_stop_init(&bs, &stop, r);
    traza_series s;
    if (load_series(r, t, &stop, &pi, &s) < 0)
        return -1;
    traza_anomalies a;
    memset(&a, 0, sizeof a);
    if (traza_anomaly_detect(&s, (traza_metric)metric, (traza_rule)rule, k, &a, &r->err) < 0) {
        traza_series_free(&s);
        return tz_fail_err(r, &r->err);
    }
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_putc(&b, '{');
    json_partial(r, &b, &pi);
    tz_buf_puts(&b, ",\"series\":");
    tz_json_str(&b, s.name);
    tz_buf_printf(&b, ",\"n\":%zu,\"metric\":\"%s\",\"rule\":\"%s\",\"k\":", s.n, traza_metric_name(a.metric), traza_rule_name(a.rule));
    tz_json_num(&b, a.k);
    tz_buf_puts(&b, ",\"lo\":"); tz_json_num(&b, a.lo);
    tz_buf_puts(&b, ",\"hi\":"); tz_json_num(&b, a.hi);
    tz_buf_puts(&b, ",\"center\":"); tz_json_num(&b, a.center);
    tz_buf_puts(&b, ",\"spread\":"); tz_json_num(&b, a.spread);
    /* the series, evenly sampled to at most MAX_POINTS points: [ts, metric] */
    size_t step = s.n > TZ_API_MAX_POINTS ? (s.n + TZ_API_MAX_POINTS - 1) / TZ_API_MAX_POINTS : 1;
    tz_buf_printf(&b, ",\"step\":%zu,\"points\":[", step);
    double vmin = INFINITY, vmax = -INFINITY;
    int first = 1;
    for (size_t i = metric == TRAZA_METRIC_PERIOD ? 1 : 0; i < s.n; i++) {
        double v = metric == TRAZA_METRIC_PERIOD ? (double)(s.ts[i] - s.ts[i - 1]) : (double)(s.end[i] - s.ts[i]);
        if (v < vmin) vmin = v;
        if (v > vmax) vmax = v;
        if (i % step)
            continue;
        tz_buf_puts(&b, first ? "[" : ",[");
        tz_json_tick(r, &b, s.ts[i]);
        tz_buf_putc(&b, ',');
        first = 0;
        tz_json_num(&b, v);
        tz_buf_putc(&b, ']');
    }
    tz_buf_printf(&b, "],\"count\":%zu,\"anomalies\":[", a.n);
    for (size_t i = 0; i < a.n && i < TZ_API_MAX_POINTS; i++) {
        size_t ix = a.index[i];
        tz_buf_printf(&b, "%s{\"id\":%lld,\"ts\":", i ? "," : "", (long long)s.id[ix]);
        tz_json_tick(r, &b, s.ts[ix]);
        tz_buf_puts(&b, ",\"value\":");
        tz_json_num(&b, a.value[i]);
        tz_buf_puts(&b, "}");
    }
    /* the density histogram of the metric values: 40 bins over [min, max] */
    enum { NB = 40 };
    uint64_t hist[NB];
    memset(hist, 0, sizeof hist);
    if (vmax >= vmin)
        for (size_t i = metric == TRAZA_METRIC_PERIOD ? 1 : 0; i < s.n; i++) {
            double v = metric == TRAZA_METRIC_PERIOD ? (double)(s.ts[i] - s.ts[i - 1]) : (double)(s.end[i] - s.ts[i]);
            size_t bi = vmax > vmin ? (size_t)((v - vmin) / (vmax - vmin) * NB) : 0;
            hist[bi < NB ? bi : NB - 1]++;
        }
    tz_buf_puts(&b, "],\"histogram\":{\"min\":");
    tz_json_num(&b, vmax >= vmin ? vmin : 0);
    tz_buf_puts(&b, ",\"max\":");
    tz_json_num(&b, vmax >= vmin ? vmax : 0);
    tz_buf_puts(&b, ",\"counts\":[");
    for (int i = 0; i < NB; i++)
        tz_buf_printf(&b, "%s%llu", i ? "," : "", (unsigned long long)hist[i]);
    tz_buf_puts(&b, "]}}");
    traza_anomalies_free(&a);
    traza_series_free(&s);
    return tz_send_json(r, &b);
}

int tz_api_correlate(tz_req *r)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    const char *mth = tz_arg_str(r, "method");
    /* the defaults of `traza correlate`: regular */
    int method = !mth || strcmp(mth, "regular") == 0 ? TRAZA_CORR_REGULAR : strcmp(mth, "irregular") == 0 ? TRAZA_CORR_IRREGULAR : -1;
    if (method < 0)
        return tz_fail(r, 400, "parameter 'method': regular or irregular, not '%.32s'", mth);
    int64_t top, delta;
    if (tz_arg_clamp(r, "top", 1, TZ_API_MAX_LIST, 20, &top) < 0 || tz_arg_i64(r, "delta", 0, INT64_MAX / 4, 0, &delta) < 0)
        return -1;
    tz_budget_stop bs;
    traza_stop stop;
    traza_partial ps, pi;
    tz_budget_stop_init(&bs, &stop, r);
    traza_series s;
    const char *of = tz_arg_str(r, "anomalies_of");
    memset(&ps, 0, sizeof ps);
    if (of && *of ? load_anomalies(r, t, of, &stop, &ps, &s) < 0 : load_series(r, t, &stop, &ps, &s) < 0)
        return -1;
    traza_rank_entry *rk = NULL;
    size_t n = 0;
    if (traza_correlate_rank(t, &s, &(traza_corr_opts){.method = (traza_corr_method)method, .delta = delta}, &stop, &pi, &rk, &n, NULL, &r->err) < 0) {
        traza_series_free(&s);
        if (r->err.code == TRAZA_E_CANCELLED)
            return fail_budget(r, "any cause was ranked", r->err.msg);
        return tz_fail_err(r, &r->err);
    }
    if (ps.partial) { /* the target itself was cut: the ranking covers no further */
        pi.partial = 1;
        if (pi.covered_to > ps.covered_to)
            pi.covered_to = ps.covered_to;
    }
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_putc(&b, '{');
    json_partial(r, &b, &pi);
    if (pi.partial)
        tz_buf_printf(&b, ",\"ranked\":%zu,\"candidates\":%zu", pi.done, pi.total);
    tz_buf_puts(&b, ",\"series\":");
    tz_json_str(&b, s.name);
    tz_buf_printf(&b, ",\"events\":%zu", s.n);
    tz_buf_printf(&b, ",\"method\":\"%s\",\"total\":%zu,\"causes\":[", method == TRAZA_CORR_REGULAR ? "regular" : "irregular", n);
    for (size_t i = 0; i < n && i < (size_t)top; i++) {
        const traza_event_type *et = traza_trace_event_type(t, rk[i].type);
        char path[1024];
        traza_trace_producer_path(t, rk[i].producer, path, sizeof path);
        tz_buf_printf(&b, "%s{\"type\":%d,\"producer\":%d,\"type_name\":", i ? "," : "", rk[i].type, rk[i].producer);
        tz_json_str(&b, et ? et->name : "?");
        tz_buf_puts(&b, ",\"producer_name\":");
        tz_json_str(&b, path);
        tz_buf_printf(&b, ",\"n\":%zu,\"r\":", rk[i].n);
        tz_json_num(&b, rk[i].r);
        tz_buf_puts(&b, ",\"color\":");
        tz_json_color(&b, et ? et->name : "?", et ? et->color : NULL);
        tz_buf_puts(&b, "}");
    }
    tz_buf_puts(&b, "]}");
    free(rk);
    traza_series_free(&s);
    return tz_send_json(r, &b);
}
