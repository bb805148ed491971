/* /api/callstack: flame chart over time and flat profile of a function trace
 * (nested states). The calls are read by the server's call-profile worker, which
 * keeps those of the last trace asked for between requests, and those of the last
 * filter asked for on it; while it reads, the answers cover the part read so far
 * (callbuild.c). The view's filter (result=, re.COLUMN=, nre.COLUMN=, types=,
 * producers=, categories=, set=) chooses the calls: the states it keeps, as
 * `traza callstack` with the same filter reads them;
 * calls are answered for a window, at most `max` of them, the longest first when
 * more fall in it (a call shorter than a pixel is invisible anyway), with the
 * window's threads and flat profile. */
#include "server/api_internal.h"
#include "server/callbuild.h"

#include <stdlib.h>
#include <string.h>

/* The k-th largest of v[0..n) (1 <= k <= n), v reordered: quickselect, O(n) on
 * average, so that choosing the longest calls costs no sort of every call. */
static int64_t kth_largest(int64_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n, want = k - 1; /* v[want] lies in [lo, hi) */
    for (;;) {
        int64_t p = v[lo + (hi - lo) / 2], x;
        size_t lt = lo, i = lo, gt = hi; /* [lo, lt) > p, [lt, i) == p, [gt, hi) < p */
        while (i < gt) {
            if (v[i] > p) {
                x = v[lt], v[lt++] = v[i], v[i++] = x;
            } else if (v[i] < p) {
                x = v[--gt], v[gt] = v[i], v[i] = x;
            } else {
                i++;
            }
        }
        if (want < lt)
            hi = lt;
        else if (want >= gt)
            lo = gt;
        else
            return p;
    }
}

/* Per thread (producer): its deepest level and its calls in the window. The calls
 * are sorted by producer, so a thread is one run of them. */
/* Every thread with calls: its deepest level in the window (in the whole trace when
 * it has none there) and its calls in the window. */
static void json_threads(tz_buf *b, traza_trace *t, const traza_callprofile *cp, int64_t from, int64_t to)
{
    char path[512];
    size_t nt = 0;
    for (size_t i = 0; i < cp->ncalls;) {
        int32_t p = cp->calls[i].producer;
        int maxl = 0, inl = 0; /* deepest level: of every call, of those in the window */
        int64_t n = 0;
        for (; i < cp->ncalls && cp->calls[i].producer == p; i++) {
            int in = cp->calls[i].end >= from && cp->calls[i].ts <= to;
            if (cp->calls[i].level > maxl)
                maxl = cp->calls[i].level;
            if (in && cp->calls[i].level > inl)
                inl = cp->calls[i].level;
            n += in;
        }
        if (n) /* the lanes the window needs, not an empty band below them */
            maxl = inl;
        tz_buf_printf(b, "%s{\"producer\":%d,\"name\":", nt++ ? "," : "", p);
        tz_json_str(b, traza_trace_producer_path(t, p, path, sizeof path));
        tz_buf_printf(b, ",\"max_level\":%d,\"calls\":%lld}", maxl, (long long)n);
    }
}

static int callstack_answer(tz_req *r, traza_trace *t, const traza_trace_info *info, int64_t from, int64_t to, int64_t max,
                            int64_t top, const traza_time_range *rg, size_t nrg, const char *key);

int tz_api_callstack(tz_req *r)
{
    traza_trace *t = tz_req_trace(r);
    if (!t)
        return -1;
    const traza_trace_info *info = traza_trace_info_of(t);
    int64_t from, to, max, top;
    if (tz_arg_i64(r, "from", INT64_MIN, INT64_MAX, info->min_ts, &from) < 0 ||
        tz_arg_i64(r, "to", INT64_MIN, INT64_MAX, info->max_ts, &to) < 0 ||
        tz_arg_clamp(r, "max", 1, TZ_API_MAX_DETAIL, 5000, &max) < 0 ||
        tz_arg_clamp(r, "top", 1, TZ_API_MAX_LIST, 50, &top) < 0)
        return -1;
    /* during= (a saved annotations result): only the calls overlapping its ranges,
     * each counted for its time inside them and the window, as `callstack --during` */
    traza_time_range *rg = NULL;
    size_t nrg = 0;
    const char *during = tz_arg_str(r, "during");
    if (during && *during) {
        traza_filter df;
        traza_filter_init(&df);
        traza_filter_spec spec = {.during = during};
        int32_t *no_types = NULL, *no_prods = NULL;
        int rr = traza_filter_resolve(t, &spec, &df, &no_types, &no_prods, &r->err);
        free(no_types);
        free(no_prods);
        if (rr < 0 || traza_result_time_ranges(t, df.during, &rg, &nrg, &r->err) < 0)
            return tz_fail_err(r, &r->err);
    }
    /* the view's filter: the calls read are the states it keeps, over the whole trace
     * (the window and during= choose what is counted and drawn, as above); parsed
     * here so that a bad one is answered at once, read by the build (callbuild.c) */
    tz_buf key;
    tz_buf_init(&key);
    tz_req_filter rf;
    int have_rf = 0, rc = -1;
    if (tz_cp_filter_key(r, &key) < 0)
        goto out;
    if (key.s[0]) {
        if (tz_req_filter_parse(r, t, &rf) < 0)
            goto out;
        have_rf = 1;
    }
    rc = callstack_answer(r, t, info, from, to, max, top, rg, nrg, key.s);
out:
    if (have_rf)
        tz_req_filter_free(&rf);
    tz_buf_free(&key);
    free(rg);
    return rc;
}

/* The answer over [from, to], within the ranges rg when given. */
static int callstack_answer(tz_req *r, traza_trace *t, const traza_trace_info *info, int64_t from, int64_t to, int64_t max,
                            int64_t top, const traza_time_range *rg, size_t nrg, const char *key)
{
    /* the whole profile, or while the background build reads it the part read so
     * far (none at first) */
    tz_shared *sh = r->api->sh;
    struct tz_cp_entry *e, none;
    if (tz_cp_profile(r, info->id, key, &e) < 0)
        return -1;
    if (!e) {
        memset(&none, 0, sizeof none);
        none.partial = 1;
        none.covered_to = INT64_MIN;
    }
    const struct tz_cp_entry *pe = e ? e : &none;
    /* the profile of the window: the shared calls, funcs and edges of its own */
    traza_callprofile win = pe->cp;
    win.funcs = NULL;
    win.edges = NULL;
    if (rg) {
        win.ranges = (traza_time_range *)rg; /* read only: traza_callprofile_range clips a copy */
        win.nranges = nrg;
    }
    if (traza_callprofile_range(t, &win, from, to) < 0) {
        tz_cp_release(sh, e);
        return tz_fail(r, 500, "out of memory");
    }
    const traza_callprofile *cp = &pe->cp;
    const traza_cp_call **sel = malloc((cp->ncalls ? cp->ncalls : 1) * sizeof *sel);
    if (!sel) {
        free(win.funcs);
        free(win.edges);
        tz_cp_release(sh, e);
        return tz_fail(r, 500, "out of memory");
    }
    size_t ns = 0;
    for (size_t i = 0; i < cp->ncalls; i++)
        if (cp->calls[i].end >= from && cp->calls[i].ts <= to && (!rg || traza_time_ranges_overlap(rg, nrg, cp->calls[i].ts, cp->calls[i].end)))
            sel[ns++] = &cp->calls[i];
    int truncated = ns > (size_t)max;
    if (truncated) { /* the max longest: those longer than the max-th, then ties */
        int64_t *dur = malloc(ns * sizeof *dur);
        if (!dur) {
            free(sel);
            free(win.funcs);
            free(win.edges);
            tz_cp_release(sh, e);
            return tz_fail(r, 500, "out of memory");
        }
        for (size_t i = 0; i < ns; i++)
            dur[i] = sel[i]->end - sel[i]->ts;
        int64_t cut = kth_largest(dur, ns, (size_t)max);
        free(dur);
        size_t above = 0, k = 0;
        for (size_t i = 0; i < ns; i++)
            above += sel[i]->end - sel[i]->ts > cut;
        size_t ties = (size_t)max - above;
        for (size_t i = 0; i < ns; i++) {
            int64_t d = sel[i]->end - sel[i]->ts;
            if (d > cut || (d == cut && ties > 0 && ties--))
                sel[k++] = sel[i];
        }
        ns = k;
    }
    tz_buf b;
    tz_buf_init(&b);
    /* partial: the profile is being built; the answer covers the calls that start up
     * to covered_to, progress (0..1) is how far covered_to is into the trace */
    tz_buf_printf(&b, "{\"partial\":%s,", pe->partial ? "true" : "false");
    if (pe->partial) {
        double done = pe->covered_to == INT64_MIN || info->max_ts <= info->min_ts
                          ? 0
                          : ((double)pe->covered_to - (double)info->min_ts) / ((double)info->max_ts - (double)info->min_ts);
        tz_buf_printf(&b, "\"building\":true,\"progress\":%.4f,", done < 0 ? 0 : done > 0.9999 ? 0.9999 : done);
    }
    const char *tick_key[] = {"covered_to", "from", "to", "min_ts", "max_ts"};
    const int64_t tick_val[] = {pe->covered_to, from, to, cp->min_ts, cp->max_ts};
    for (size_t i = pe->partial && pe->covered_to != INT64_MIN ? 0 : 1; i < 5; i++) {
        tz_buf_printf(&b, "\"%s\":", tick_key[i]);
        tz_json_tick(r, &b, tick_val[i]);
        tz_buf_putc(&b, ',');
    }
    tz_buf_puts(&b, "\"threads\":[");
    json_threads(&b, t, cp, from, to);
    tz_buf_printf(&b, "],\"max_level\":%d,\"truncated\":%s,\"fields\":[\"ts\",\"end\",\"type\",\"producer\",\"level\"],\"calls\":[",
                  cp->max_level, truncated ? "true" : "false");
    for (size_t i = 0; i < ns; i++) {
        tz_buf_puts(&b, i ? ",[" : "[");
        tz_json_tick(r, &b, sel[i]->ts);
        tz_buf_putc(&b, ',');
        tz_json_tick(r, &b, sel[i]->end);
        tz_buf_printf(&b, ",%d,%d,%d]", sel[i]->type, sel[i]->producer, sel[i]->level);
    }
    free(sel);
    /* the flat profile of the window: each call counted for its part inside it */
    tz_buf_puts(&b, "],\"profile\":[");
    for (size_t i = 0; i < win.nfuncs && i < (size_t)top; i++) {
        const traza_cp_func *f = &win.funcs[i];
        const traza_event_type *et = traza_trace_event_type(t, f->type);
        tz_buf_printf(&b, "%s{\"type\":%d,\"name\":", i ? "," : "", f->type);
        tz_json_str(&b, f->name ? f->name : "?");
        tz_buf_printf(&b, ",\"calls\":%lld,\"inclusive\":%lld,\"exclusive\":%lld,\"color\":", (long long)f->calls,
                      (long long)f->inclusive, (long long)f->exclusive);
        tz_json_color(&b, f->name ? f->name : "?", et ? et->color : NULL);
        tz_buf_puts(&b, "}");
    }
    tz_buf_printf(&b, "],\"functions\":%zu}", win.nfuncs);
    free(win.funcs);
    free(win.edges);
    tz_cp_release(sh, e);
    return tz_send_json(r, &b);
}
