/* /api/diff: what changed from a base trace to a trace, as `traza diff BASE TRACE
 * --json --ranges` answers it (several runs per side: base= repeated, and new= the
 * runs beside the open trace=, as `traza diff --base A1 A2 --new B1 B2`) (the rows ranked with their tests, and where in time
 * each slower or faster row shows), with the merged call tree of the two (the
 * differential flame graph) when they hold calls and, with structure=1, what changed
 * in their structure (the call paths of one side only, the sequence patterns whose
 * counts changed: traza_diff_json_structure). The diff reads both traces whole:
 * it is not cut by the request's budget. */
#include "server/api_internal.h"

#include <stdint.h>
#include <string.h>

/* At most this many runs per side. */
#define TZ_DIFF_MAX_RUNS 8

/* At most this many frames of the call tree are answered (a caller always before its
 * callees, so a cut tree is still a tree); "truncated" says when more exist. */
#define TZ_DIFF_MAX_FRAMES 200000

/* "tree": {"span_a", "span_b", "max_depth", "metric", "truncated", "fields",
 * "frames": [[name, parent (-1 for a root), depth, calls_a, calls_b, total_a,
 * total_b, self_a, self_b, fill]]}, the times in seconds, the fill that of
 * traza_diff_frame_color for the metric. */
static void json_tree(tz_buf *b, const traza_diff_tree *t, traza_diff_metric m, size_t max)
{
    size_t n = t->nframes < max ? t->nframes : max;
    tz_buf_puts(b, "{\"span_a\":");
    tz_json_num(b, t->span_a);
    tz_buf_puts(b, ",\"span_b\":");
    tz_json_num(b, t->span_b);
    tz_buf_printf(b, ",\"max_depth\":%d,\"metric\":\"%s\",\"frames_total\":%zu,\"truncated\":%s", t->max_depth,
                  m == TRAZA_DIFF_METRIC_TOTAL ? "total" : "self", t->nframes, n < t->nframes ? "true" : "false");
    tz_buf_puts(b, ",\"fields\":[\"name\",\"parent\",\"depth\",\"calls_a\",\"calls_b\",\"total_a\",\"total_b\",\"self_a\","
                   "\"self_b\",\"fill\"],\"frames\":[");
    for (size_t i = 0; i < n; i++) {
        const traza_diff_frame *f = &t->frames[i];
        char fill[8];
        traza_diff_frame_color(f, m, fill);
        tz_buf_puts(b, i ? ",[" : "[");
        tz_json_str(b, f->name);
        tz_buf_printf(b, ",%lld,%d,%lld,%lld", f->parent == SIZE_MAX ? -1LL : (long long)f->parent, f->depth,
                      (long long)f->calls_a, (long long)f->calls_b);
        const double v[] = {f->total_a, f->total_b, f->self_a, f->self_b};
        for (size_t k = 0; k < 4; k++) {
            tz_buf_putc(b, ',');
            tz_json_num(b, v[k]);
        }
        tz_buf_putc(b, ',');
        tz_json_str(b, fill);
        tz_buf_putc(b, ']');
    }
    tz_buf_puts(b, "]}");
}

/* The structure of A and B, from d when it is by function, else from a diff by function. */
static int structure_json(tz_buf *out, traza_trace *a, traza_trace *b, const traza_diff *d, traza_err *err)
{
    if (d->opts.by == TRAZA_DIFF_BY_FUNCTION)
        return traza_diff_json_structure(tz_buf_sink, out, a, b, d, err);
    traza_diff_opts o = d->opts;
    o.by = TRAZA_DIFF_BY_FUNCTION;
    traza_diff fn;
    if (traza_diff_compute(a, b, &o, &fn, err) < 0)
        return -1;
    int rc = traza_diff_json_structure(tz_buf_sink, out, a, b, &fn, err);
    traza_diff_free(&fn);
    return rc;
}

/* The runs of one side: the values of parameter `key` in order, each opened for this
 * request alone (tz_req_trace_open), after `first` when given (the open trace). 0, or -1
 * after an answer. */
static int open_runs(tz_req *r, const char *key, traza_trace *first, traza_trace **runs, size_t *n, traza_trace **owned,
                     size_t *nowned)
{
    *n = 0;
    if (first)
        runs[(*n)++] = first;
    for (size_t i = 0; i < r->params->n; i++) {
        if (strcmp(r->params->p[i].key, key) != 0 || !*r->params->p[i].value)
            continue;
        if (*n == TZ_DIFF_MAX_RUNS)
            return tz_fail(r, 400, "at most %d runs per side (parameter '%s')", TZ_DIFF_MAX_RUNS, key);
        traza_trace *t = tz_req_trace_open(r, r->params->p[i].value);
        if (!t)
            return -1;
        owned[(*nowned)++] = t;
        runs[(*n)++] = t;
    }
    if (*n == 0)
        return tz_fail(r, 400, "missing parameter '%s'", key);
    return 0;
}

static int diff_answer(tz_req *r, traza_trace *const *ta, size_t na, traza_trace *const *tb, size_t nb);

int tz_api_diff(tz_req *r)
{
    traza_trace *b = tz_req_trace(r);
    if (!b)
        return -1;
    traza_trace *ta[TZ_DIFF_MAX_RUNS], *tb[TZ_DIFF_MAX_RUNS], *owned[2 * TZ_DIFF_MAX_RUNS];
    size_t na = 0, nb = 0, nowned = 0;
    int rc = -1;
    if (open_runs(r, "base", NULL, ta, &na, owned, &nowned) == 0 && open_runs(r, "new", b, tb, &nb, owned, &nowned) == 0)
        rc = diff_answer(r, ta, na, tb, nb);
    for (size_t i = 0; i < nowned; i++)
        traza_trace_close(owned[i]);
    return rc;
}

/* The answer for runs ta (base) and tb (the open trace first): the rows of every run;
 * the structure, the call tree and the ranges' origin those of the first run of each
 * side. */
static int diff_answer(tz_req *r, traza_trace *const *ta, size_t na, traza_trace *const *tb, size_t nb)
{
    traza_trace *a = ta[0], *b = tb[0];
    traza_diff_opts o;
    traza_diff_opts_init(&o);
    const char *by = tz_arg_str(r, "by"), *metric = tz_arg_str(r, "metric");
    if (!by || strcmp(by, "type") == 0)
        o.by = TRAZA_DIFF_BY_TYPE;
    else if (strcmp(by, "producer") == 0)
        o.by = TRAZA_DIFF_BY_PRODUCER;
    else if (strcmp(by, "function") == 0)
        o.by = TRAZA_DIFF_BY_FUNCTION;
    else
        return tz_fail(r, 400, "parameter 'by': type, producer or function, not '%.32s'", by);
    traza_diff_metric m = TRAZA_DIFF_METRIC_SELF;
    if (metric && strcmp(metric, "total") == 0)
        m = TRAZA_DIFF_METRIC_TOTAL;
    else if (metric && strcmp(metric, "self") != 0)
        return tz_fail(r, 400, "parameter 'metric': self or total, not '%.32s'", metric);
    int64_t tree, max_frames, structure;
    if (tz_arg_i64(r, "tree", 0, 1, 1, &tree) < 0 || tz_arg_i64(r, "structure", 0, 1, 0, &structure) < 0 ||
        tz_arg_clamp(r, "max_frames", 1, TZ_DIFF_MAX_FRAMES, TZ_DIFF_MAX_FRAMES, &max_frames) < 0 ||
        tz_arg_double(r, "alpha", 1e-300, 1, o.alpha, &o.alpha) < 0)
        return -1;
    traza_diff d;
    if ((na == 1 && nb == 1 ? traza_diff_compute(a, b, &o, &d, &r->err) : traza_diff_compute_runs(ta, na, tb, nb, &o, &d, &r->err)) < 0)
        return tz_fail_err(r, &r->err);
    tz_buf out;
    tz_buf_init(&out);
    tz_buf_putc(&out, '{');
    if (traza_diff_json_fields(tz_buf_sink, &out, ta, tb, &d, NULL) != 0)
        out.oom = 1;
    /* B's first timestamp and time unit: the ranges' seconds are from it */
    const traza_trace_info *ib = traza_trace_info_of(b);
    tz_buf_puts(&out, ",\"b_min_ts\":");
    tz_json_tick(r, &out, ib->min_ts);
    tz_buf_printf(&out, ",\"b_time_unit\":%d,\"ranges\":", ib->time_unit);
    int rc = traza_diff_json_ranges(tz_buf_sink, &out, ta, na, tb, nb, &d, &r->err);
    if (rc == 0 && structure) {
        tz_buf_puts(&out, ",\"structure\":");
        rc = structure_json(&out, a, b, &d, &r->err);
    }
    traza_diff_free(&d);
    if (rc < 0) {
        tz_buf_free(&out);
        return tz_fail_err(r, &r->err);
    }
    tz_buf_puts(&out, ",\"tree\":");
    if (tree) {
        traza_diff_tree t;
        if (traza_diff_tree_compute(a, b, &t, &r->err) < 0) {
            tz_buf_free(&out);
            return tz_fail_err(r, &r->err);
        }
        json_tree(&out, &t, m, (size_t)max_frames);
        traza_diff_tree_free(&t);
    } else {
        tz_buf_puts(&out, "null");
    }
    tz_buf_putc(&out, '}');
    return tz_send_json(r, &out);
}
