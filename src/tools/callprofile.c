/* Call-stack analysis over nested states: per-function calls, inclusive and
 * exclusive time, caller->callee edges. */
#include "tools/callprofile.h"
#include "tools/tool_filter.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static int cmp_call(const void *a, const void *b)
{
    const traza_cp_call *x = a, *y = b;
    if (x->producer != y->producer)
        return x->producer < y->producer ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->level > y->level) - (x->level < y->level);
}

static int cmp_func(const void *a, const void *b)
{
    const traza_cp_func *x = a, *y = b;
    if (x->exclusive != y->exclusive)
        return x->exclusive > y->exclusive ? -1 : 1;
    return (x->type > y->type) - (x->type < y->type);
}

void traza_callprofile_free(traza_callprofile *cp)
{
    free(cp->calls);
    free(cp->funcs);
    free(cp->edges);
    free(cp->ranges);
    memset(cp, 0, sizeof *cp);
}

static traza_cp_func *func_of(traza_callprofile *cp, tz_imap *idx, size_t *cap, traza_trace *t, int32_t type)
{
    int64_t i;
    if (tz_imap_get(idx, type, &i))
        return &cp->funcs[i];
    if (TZ_GROW(cp->funcs, *cap, cp->nfuncs + 1) < 0 || tz_imap_put(idx, type, (int64_t)cp->nfuncs) < 0)
        return NULL;
    traza_cp_func *f = &cp->funcs[cp->nfuncs++];
    memset(f, 0, sizeof *f);
    f->type = type;
    const traza_event_type *et = traza_trace_event_type(t, type);
    f->name = et ? et->name : "?";
    return f;
}

static traza_cp_edge *edge_of(traza_callprofile *cp, tz_imap *idx, size_t *cap, int32_t caller, int32_t callee)
{
    int64_t key = (int64_t)((uint64_t)(uint32_t)caller << 32 | (uint32_t)callee), i;
    if (tz_imap_get(idx, key, &i))
        return &cp->edges[i];
    if (TZ_GROW(cp->edges, *cap, cp->nedges + 1) < 0 || tz_imap_put(idx, key, (int64_t)cp->nedges) < 0)
        return NULL;
    traza_cp_edge *e = &cp->edges[cp->nedges++];
    memset(e, 0, sizeof *e);
    e->caller = caller;
    e->callee = callee;
    return e;
}

/* Orders calls by (producer, ts, level) in O(n) and in place: the store gives them in
 * time order, so a stable counting sort by producer keeps each thread's calls in time
 * order (skipped when they are grouped already, as a one-thread recording's are), and
 * only the calls of one tick may need their levels put in order. The counting sort
 * computes each call's place (4 bytes a call) and moves the calls there along the
 * permutation's cycles, rather than copying them (32 bytes a call) into a second array. */
static int sort_calls(traza_callprofile *cp)
{
    size_t n = cp->ncalls;
    if (n < 2)
        return 0;
    int32_t pmin = cp->calls[0].producer, pmax = pmin;
    int grouped = 1;
    for (size_t i = 1; i < n; i++) {
        int32_t p = cp->calls[i].producer;
        grouped &= p >= cp->calls[i - 1].producer;
        if (p < pmin) pmin = p;
        if (p > pmax) pmax = p;
    }
    size_t np = (size_t)((int64_t)pmax - pmin) + 1;
    traza_cp_call *c = cp->calls;
    if (!grouped && (np > n || n > UINT32_MAX)) { /* sparse producer ids: a comparison sort costs less than the buckets */
        qsort(c, n, sizeof *c, cmp_call);
        return 0;
    }
    if (!grouped) {
        size_t *pos = calloc(np + 1, sizeof *pos);
        uint32_t *dest = malloc(n * sizeof *dest);
        if (!pos || !dest) {
            free(pos);
            free(dest);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            pos[(size_t)(c[i].producer - pmin) + 1]++;
        for (size_t k = 1; k <= np; k++)
            pos[k] += pos[k - 1];
        for (size_t i = 0; i < n; i++)
            dest[i] = (uint32_t)pos[(size_t)(c[i].producer - pmin)]++;
        free(pos);
        for (size_t i = 0; i < n; i++)
            while (dest[i] != i) { /* each swap puts one call in its place */
                uint32_t j = dest[i];
                traza_cp_call x = c[i];
                c[i] = c[j];
                c[j] = x;
                dest[i] = dest[j];
                dest[j] = j;
            }
        free(dest);
    }
    for (size_t i = 1; i < n; i++) { /* insertion: moves only within a run of one tick */
        traza_cp_call x = c[i];
        size_t j = i;
        while (j > 0 && cmp_call(&c[j - 1], &x) > 0) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
    return 0;
}

void traza_callprofile_bounds(traza_callprofile *cp)
{
    cp->min_ts = cp->ncalls ? cp->calls[0].ts : 0;
    cp->max_ts = cp->min_ts;
    cp->max_level = 0;
    for (size_t i = 0; i < cp->ncalls; i++) {
        const traza_cp_call *c = &cp->calls[i];
        if (c->ts < cp->min_ts)
            cp->min_ts = c->ts;
        if (c->end > cp->max_ts)
            cp->max_ts = c->end;
        if (c->level > cp->max_level)
            cp->max_level = c->level;
    }
}

int traza_callprofile_build(traza_trace *t, traza_callprofile *cp, const traza_filter *sel, const traza_stop *stop, traza_partial *pi,
                         traza_err *err)
{
    memset(cp, 0, sizeof *cp);
    traza_partial pdummy;
    if (!pi)
        pi = &pdummy;
    memset(pi, 0, sizeof *pi);
    pi->covered_to = INT64_MIN;
    traza_filter f = tz_filter_all_of(sel);
    f.with_params = f.nregexes > 0 || f.nconds > 0;
    if (tz_filter_only_category(&f, TRAZA_STATE, "call profiles", err) < 0)
        return -1;
    /* the calls' array sized once when counting is a look-up (no regex or condition to
     * evaluate, and so nothing to stop): a doubling array would hold up to twice their
     * 32 bytes each */
    size_t cap = 0;
    if (f.nregexes == 0 && f.nconds == 0) {
        int64_t n = traza_count(t, &f, err);
        if (n < 0)
            return -1;
        /* (a failure leaves the array to grow as the calls come: a build stopped early
         * may need far fewer) */
        if (n > 0 && (uint64_t)n <= SIZE_MAX / sizeof *cp->calls && (cp->calls = malloc((size_t)n * sizeof *cp->calls)))
            cap = (size_t)n;
    }
    f.stop = stop; /* a step of the store may pass over millions of other events */
    traza_cursor *cur = traza_query(t, &f, err);
    if (!cur) {
        traza_callprofile_free(cp);
        return -1;
    }
    const traza_event *ev;
    int rc;
    while ((rc = traza_cursor_next(cur, &ev, err)) == 1) {
        if (TZ_GROW(cp->calls, cap, cp->ncalls + 1) < 0) {
            traza_cursor_free(cur);
            traza_callprofile_free(cp);
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        }
        cp->calls[cp->ncalls++] = tz_cp_call_of(ev);
        pi->covered_to = ev->ts;
        if (stop && stop->fn && cp->ncalls % 4096 == 0 && stop->fn(stop->ctx, TRAZA_STAGE_READ)) {
            pi->partial = 1;
            break;
        }
    }
    if (rc == 0)
        pi->read_all = 1;
    traza_cursor_free(cur);
    if (rc < 0 && err && err->code == TRAZA_E_CANCELLED) {
        traza_err_clear(err);
        pi->partial = 1;
        rc = 0;
    }
    if (rc < 0) {
        traza_callprofile_free(cp);
        return -1;
    }
    if (sort_calls(cp) < 0) {
        traza_callprofile_free(cp);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    traza_callprofile_bounds(cp);
    if (f.during && traza_result_time_ranges(t, f.during, &cp->ranges, &cp->nranges, err) < 0) {
        traza_callprofile_free(cp);
        return -1;
    }
    if (traza_callprofile_range(t, cp, cp->min_ts, cp->max_ts) < 0) {
        traza_callprofile_free(cp);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    return 0;
}

int traza_callprofile_parents(const traza_callprofile *cp, int64_t *parent)
{
    int64_t *open = malloc(TZ_CP_MAX_DEPTH * sizeof *open); /* the call open at each level */
    if (!open)
        return -1;
    int32_t prod = -1;
    int depth = 0;
    for (size_t i = 0; i < cp->ncalls; i++) {
        const traza_cp_call *c = &cp->calls[i];
        if (c->producer != prod) {
            prod = c->producer;
            depth = 0;
        }
        for (int k = depth; k < c->level; k++) /* levels skipped (a thread first seen deep in its stack) have no call */
            open[k] = -1;
        parent[i] = c->level > 0 ? open[c->level - 1] : -1;
        open[c->level] = (int64_t)i;
        depth = c->level + 1;
    }
    free(open);
    return 0;
}

int traza_callprofile_range(traza_trace *t, traza_callprofile *cp, int64_t from, int64_t to)
{
    if (!cp->ranges) {
        traza_time_range r = {from, to};
        return traza_callprofile_ranges(t, cp, &r, from > to ? 0 : 1);
    }
    traza_time_range *r = malloc((cp->nranges ? cp->nranges : 1) * sizeof *r); /* the ranges clipped to [from, to] */
    if (!r)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < cp->nranges; i++)
        if (cp->ranges[i].to >= from && cp->ranges[i].from <= to)
            r[n++] = (traza_time_range){cp->ranges[i].from > from ? cp->ranges[i].from : from, cp->ranges[i].to < to ? cp->ranges[i].to : to};
    int rc = traza_callprofile_ranges(t, cp, r, n);
    free(r);
    return rc;
}

/* The time of [a, b] inside the ranges, and whether it overlaps one of them. */
static int64_t time_inside(const traza_time_range *r, size_t nr, int64_t a, int64_t b, int *overlaps)
{
    int64_t in = 0;
    *overlaps = 0;
    for (size_t k = 0; k < nr && r[k].from <= b; k++)
        if (r[k].to >= a) {
            *overlaps = 1;
            in += (b < r[k].to ? b : r[k].to) - (a > r[k].from ? a : r[k].from);
        }
    return in;
}

int traza_callprofile_ranges(traza_trace *t, traza_callprofile *cp, const traza_time_range *r, size_t nr)
{
    free(cp->funcs);
    free(cp->edges);
    cp->funcs = NULL;
    cp->edges = NULL;
    cp->nfuncs = cp->nedges = 0;
    tz_imap fidx, eidx;
    tz_imap_init(&fidx);
    tz_imap_init(&eidx);
    size_t fcap = 0, ecap = 0;
    int32_t *stack = malloc(TZ_CP_MAX_DEPTH * sizeof *stack); /* the type open at each level */
    int ok = stack != NULL;
    int32_t prod = -1;
    int depth = 0;
    for (size_t i = 0; ok && i < cp->ncalls; i++) {
        const traza_cp_call *c = &cp->calls[i];
        if (c->producer != prod) {
            prod = c->producer;
            depth = 0;
        }
        for (int k = depth; k < c->level; k++) /* as in traza_callprofile_parents */
            stack[k] = -1;
        int32_t parent = c->level > 0 ? stack[c->level - 1] : -1;
        int recursive = 0;
        for (int k = 0; k < c->level && k < depth; k++)
            if (stack[k] == c->type)
                recursive = 1;
        stack[c->level] = c->type;
        depth = c->level + 1;
        int inside;
        int64_t dur = time_inside(r, nr, c->ts, c->end, &inside);
        if (!inside)
            continue; /* outside the ranges: only its place on the stack counts */
        traza_cp_func *fn = func_of(cp, &fidx, &fcap, t, c->type);
        traza_cp_func *pf = parent >= 0 ? func_of(cp, &fidx, &fcap, t, parent) : NULL;
        traza_cp_edge *e = edge_of(cp, &eidx, &ecap, parent, c->type);
        if (!fn || (parent >= 0 && !pf) || !e) {
            ok = 0;
            break;
        }
        fn = func_of(cp, &fidx, &fcap, t, c->type); /* pf's allocation may have moved the array */
        fn->calls++;
        if (!recursive)
            fn->inclusive += dur;
        fn->exclusive += dur;
        if (c->level > fn->max_level)
            fn->max_level = c->level;
        if (pf)
            func_of(cp, &fidx, &fcap, t, parent)->exclusive -= dur;
        e->calls++;
        e->time += dur;
    }
    free(stack);
    tz_imap_free(&fidx);
    tz_imap_free(&eidx);
    if (!ok)
        return -1;
    if (cp->nfuncs)
        qsort(cp->funcs, cp->nfuncs, sizeof *cp->funcs, cmp_func);
    return 0;
}
