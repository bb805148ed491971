/* The micro model of /api/aggregate, bounded in time whatever the window.
 *
 * - a window of at most TZ_AGG_EXACT events (or exact=N, less), or the time ranges
 *   of saved annotations (during=): the library's exact model;
 * - the occurrences model with the server's time index: exact, from the index (one
 *   pass over the window's entries, no store access); the index is filled with at
 *   most half of each request's budget (tindex.c), so on a big trace the first
 *   requests are sampled and the later ones exact;
 * - otherwise sampled: in each slice, the first TZ_AGG_SCAN / slices events that
 *   start in it are read and their contributions scaled by (events starting in the
 *   slice) / (events read). Every read stops at the request's deadline; slices not
 *   reached then stay empty and the answer says "partial". */
#include "server/api_internal.h"

#include <stdlib.h>
#include <string.h>

#define TZ_AGG_EXACT 500000
#define TZ_AGG_SCAN 400000

static int64_t slice_at(int64_t t0, int64_t t1, size_t n, size_t k)
{
    return t0 + (int64_t)(((__int128)t1 - t0) * (__int128)k / (__int128)n);
}

typedef struct acc {
    size_t nslices, ns, cap;
    int32_t maxp, maxt;
    int32_t *sidx;
    double *v, *w;
    int32_t *stype, *sprod;
} acc;

static int series_of(acc *a, int32_t type, int32_t prod)
{
    if (type < 0 || type > a->maxt || prod < 0 || prod > a->maxp)
        return -1;
    size_t key = (size_t)type * ((size_t)a->maxp + 1) + (size_t)prod;
    if (a->sidx[key] >= 0)
        return a->sidx[key];
    if (a->ns == a->cap) {
        size_t nc = a->cap ? 2 * a->cap : 16;
        double *v = realloc(a->v, nc * a->nslices * sizeof *v);
        if (v) a->v = v;
        double *w = v ? realloc(a->w, nc * a->nslices * sizeof *w) : NULL;
        if (w) a->w = w;
        int32_t *st = w ? realloc(a->stype, nc * sizeof *st) : NULL;
        if (st) a->stype = st;
        int32_t *sp = st ? realloc(a->sprod, nc * sizeof *sp) : NULL;
        if (sp) a->sprod = sp;
        if (!sp)
            return -2;
        a->cap = nc;
    }
    memset(a->v + a->ns * a->nslices, 0, a->nslices * sizeof *a->v);
    memset(a->w + a->ns * a->nslices, 0, a->nslices * sizeof *a->w);
    a->stype[a->ns] = type;
    a->sprod[a->ns] = prod;
    a->sidx[key] = (int32_t)a->ns;
    return (int)a->ns++;
}

int tz_agg_micro_bounded(tz_req *r, traza_trace *t, int64_t t0, int64_t t1, size_t nslices, int model, traza_agg_micro *m,
                         int *sampled, int *partial)
{
    *sampled = *partial = 0;
    memset(m, 0, sizeof *m);
    /* during= (saved annotations): the library's exact model over the ranges, as
     * `traza aggregate --during` builds it */
    traza_filter f;
    traza_filter_init(&f);
    f.has_from = f.has_to = 1;
    f.from = t0;
    f.to = t1;
    const char *during = tz_arg_str(r, "during");
    if (during && *during) {
        traza_filter_spec spec = {.during = during};
        int32_t *no_types = NULL, *no_prods = NULL;
        int rr = traza_filter_resolve(t, &spec, &f, &no_types, &no_prods, &r->err);
        free(no_types);
        free(no_prods);
        return rr < 0 ? -1 : traza_agg_micro_build(t, &f, nslices, (traza_agg_model)model, m, &r->err);
    }
    int64_t n = traza_count(t, &f, &r->err); /* rank look-ups: no scan */
    if (n < 0)
        return -1;
    int64_t exact;
    if (tz_arg_clamp(r, "exact", 1, TZ_AGG_EXACT, TZ_AGG_EXACT, &exact) < 0)
        return -2;
    if (n <= exact)
        return traza_agg_micro_build(t, &f, nslices, (traza_agg_model)model, m, &r->err);
    /* the time index takes at most half the budget; until it is complete (after a
     * few requests on a big trace) the answer is sampled */
    int64_t now = tz_now_ns();
    const tz_tindex *ix = model == TRAZA_AGG_OCCURRENCES ? tz_req_tindex_within(r, t, now + (r->deadline - now) / 2) : NULL;
    const traza_producer *prods;
    const traza_event_type *types;
    size_t np = traza_trace_producers(t, &prods), nt = traza_trace_event_types(t, &types);
    acc a;
    memset(&a, 0, sizeof a);
    a.nslices = nslices;
    for (size_t i = 0; i < np; i++)
        if (prods[i].id > a.maxp) a.maxp = prods[i].id;
    for (size_t i = 0; i < nt; i++)
        if (types[i].id > a.maxt) a.maxt = types[i].id;
    size_t nkeys = ((size_t)a.maxt + 1) * ((size_t)a.maxp + 1);
    a.sidx = malloc(nkeys * sizeof *a.sidx);
    int rc = 0;
    if (!a.sidx) {
        rc = traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nkeys; i++)
        a.sidx[i] = -1;
    double span = (double)t1 - (double)t0, fn = (double)nslices;
    if (model == TRAZA_AGG_OCCURRENCES && ix) {
        /* exact, from the index */
        size_t e = tz_tindex_first_gt(ix, t1);
        for (size_t i = tz_tindex_first_ge(ix, t0); i < e; i++) {
            if ((i & 65535) == 65535 && tz_req_expired(r)) {
                *partial = 1;
                break;
            }
            int s = series_of(&a, tz_tindex_type(ix, i), tz_tindex_prod(ix, i));
            if (s == -2) {
                rc = traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
                goto out;
            }
            if (s < 0)
                continue;
            size_t k = (size_t)(((double)ix->ts[i] - (double)t0) * fn / span);
            a.v[(size_t)s * nslices + (k < nslices ? k : nslices - 1)] += 1;
        }
    } else {
        *sampled = 1;
        int64_t per = TZ_AGG_SCAN / (int64_t)nslices;
        if (per < 16)
            per = 16;
        int avg = model == TRAZA_AGG_STATE_AVG || model == TRAZA_AGG_VARIABLE_AVG;
        for (size_t k = 0; k < nslices && rc == 0; k++) {
            if (k > 0 && tz_req_expired(r)) { /* the first slice is always read */
                *partial = 1;
                break;
            }
            traza_filter sf = f;
            sf.from = slice_at(t0, t1, nslices, k);
            sf.to = k + 1 == nslices ? t1 : slice_at(t0, t1, nslices, k + 1) - 1;
            if (sf.to < sf.from)
                continue;
            int64_t cnt = ix ? (int64_t)(tz_tindex_first_gt(ix, sf.to) - tz_tindex_first_ge(ix, sf.from)) : traza_count(t, &sf, &r->err);
            if (cnt < 0) { rc = -1; break; }
            if (cnt == 0)
                continue;
            sf.limit = per;
            traza_cursor *c = traza_query(t, &sf, &r->err);
            if (!c) { rc = -1; break; }
            /* contributions of this slice's sample into a scratch row set, then scaled */
            const traza_event *ev;
            int64_t seen = 0;
            size_t ns0 = a.ns;
            double *dv = calloc(a.nslices * (a.cap + (size_t)per + 1), sizeof *dv);
            double *dw = calloc(a.nslices * (a.cap + (size_t)per + 1), sizeof *dw);
            if (!dv || !dw) {
                free(dv); free(dw); traza_cursor_free(c);
                rc = traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
                break;
            }
            int q;
            while ((q = traza_cursor_next(c, &ev, &r->err)) == 1) {
                seen++;
                int cat = ev->type >= 0 && (size_t)ev->type < nt ? (int)types[ev->type].category : -1;
                if (model == TRAZA_AGG_OCCURRENCES ? 0
                    : (model == TRAZA_AGG_VARIABLE_AVG ? cat != TRAZA_VARIABLE : cat != TRAZA_STATE))
                    continue;
                int s = series_of(&a, ev->type, ev->producer);
                if (s == -2) { q = traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory"); break; }
                if (s < 0)
                    continue;
                double *row = dv + (size_t)s * nslices, *wr = dw + (size_t)s * nslices;
                int64_t ea = ev->ts, eb = (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts;
                if (model == TRAZA_AGG_OCCURRENCES) { row[k] += 1; continue; }
                double val = model == TRAZA_AGG_VARIABLE_AVG ? ev->value : 0;
                int64_t cb = eb > t1 ? t1 : eb;
                if (cb == ea) {
                    if (model == TRAZA_AGG_VARIABLE_AVG) { row[k] += val; wr[k] += 1; }
                    else if (model == TRAZA_AGG_STATE_AVG) wr[k] += 1;
                    continue;
                }
                for (size_t j = k; j < nslices; j++) {
                    int64_t sa = slice_at(t0, t1, nslices, j), sb = slice_at(t0, t1, nslices, j + 1);
                    if (sa >= cb)
                        break;
                    int64_t oa = ea > sa ? ea : sa, ob = cb < sb ? cb : sb;
                    if (ob <= oa)
                        continue;
                    double ov = (double)(ob - oa);
                    if (model == TRAZA_AGG_STATE_DURATION) row[j] += ov;
                    else if (model == TRAZA_AGG_STATE_AVG) { row[j] += ov; wr[j] += 1; }
                    else { row[j] += val * ov; wr[j] += ov; }
                }
                if ((seen & 4095) == 0 && tz_req_expired(r)) {
                    *partial = 1;
                    break;
                }
            }
            traza_cursor_free(c);
            if (q < 0) {
                free(dv); free(dw);
                rc = -1;
                break;
            }
            (void)ns0;
            double scale = seen > 0 ? (double)cnt / (double)seen : 1;
            for (size_t i = 0; i < a.ns * nslices; i++) {
                a.v[i] += dv[i] * scale;
                a.w[i] += dw[i] * scale;
            }
            free(dv);
            free(dw);
            if (*partial)
                break;
        }
        if (rc == 0 && avg)
            for (size_t i = 0; i < a.ns * nslices; i++)
                a.v[i] = a.w[i] > 0 ? a.v[i] / a.w[i] : 0;
    }
    if (rc == 0 && a.ns == 0) {
        rc = traza_err_set(&r->err, TRAZA_E_USAGE, "no events to aggregate with the %s model in the window",
                           traza_agg_model_name((traza_agg_model)model));
    }
    if (rc == 0) {
        m->nslices = nslices;
        m->nseries = a.ns;
        m->v = a.v;
        m->type = a.stype;
        m->producer = a.sprod;
        m->t0 = t0;
        m->t1 = t1;
        a.v = NULL;
        a.stype = a.sprod = NULL;
    }
out:
    free(a.sidx);
    free(a.v);
    free(a.w);
    free(a.stype);
    free(a.sprod);
    return rc < 0 ? -1 : 0;
}
