/* Loading a series (one event type, optionally of one producer or subtree, or a
 * saved event set) into compact arrays. */
#include "traza/analysis.h"
#include "analysis/progress.h"
#include "tools/tool_filter.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void traza_series_free(traza_series *s)
{
    if (!s)
        return;
    free(s->id);
    free(s->ts);
    free(s->end);
    free(s->type);
    free(s->producer);
    memset(s, 0, sizeof *s);
}

static int series_alloc(traza_series *s, size_t cap, traza_err *err)
{
    if (cap == 0)
        cap = 1;
    s->id = malloc(cap * sizeof *s->id);
    s->ts = malloc(cap * sizeof *s->ts);
    s->end = malloc(cap * sizeof *s->end);
    s->type = malloc(cap * sizeof *s->type);
    s->producer = malloc(cap * sizeof *s->producer);
    if (!s->id || !s->ts || !s->end || !s->type || !s->producer) {
        traza_series_free(s);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for a series of %zu events", cap);
    }
    return 0;
}

int traza_series_from(traza_series *s, const char *name, const int64_t *ts, const int64_t *end, size_t n, traza_err *err)
{
    memset(s, 0, sizeof *s);
    if (series_alloc(s, n, err) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        s->id[i] = (int64_t)i + 1;
        s->ts[i] = ts[i];
        s->end[i] = end ? end[i] : ts[i];
        s->type[i] = 0;
        s->producer[i] = 0;
    }
    s->n = n;
    snprintf(s->name, sizeof s->name, "%s", name ? name : "series");
    return 0;
}

int traza_series_load(traza_trace *t, const char *spec, int subtree, const traza_filter *within, const traza_stop *stop,
                      traza_partial *pi, traza_series *s, traza_err *err)
{
    memset(s, 0, sizeof *s);
    traza_partial pdummy;
    if (!pi)
        pi = &pdummy;
    memset(pi, 0, sizeof *pi);
    pi->covered_to = INT64_MIN;
    traza_filter f = tz_filter_all_of(within);
    f.types = NULL;
    f.ntypes = 0;
    f.producers = NULL;
    f.nproducers = 0;
    int32_t type = -1;
    int32_t *prods = NULL;
    size_t nprods = 0;
    traza_result_info ri;
    memset(&ri, 0, sizeof ri);
    const traza_event_type *ty = traza_trace_event_type_by_name(t, spec);
    const char *at = strrchr(spec, '@');
    traza_err e2;
    traza_err_clear(&e2);
    int64_t node = 0;
    int is_set = !ty && traza_result_input(t, spec, &ri, &node, &e2) == 0;
    if (is_set)
        traza_result_info_clear(&ri);
    if (ty) {
        type = ty->id;
    } else if (is_set) {
        if (f.event_set)
            return traza_err_set(err, TRAZA_E_USAGE, "series '%s' is a saved set: it takes no other set", spec);
        traza_err e3;
        traza_err_clear(&e3);
        if (traza_filter_set_result(t, &f, spec, &e3) < 0)
            return traza_err_set(err, e3.code, "series '%s': %s", spec, e3.msg);
    } else if (at && at != spec) {
        char tname[256];
        size_t tl = (size_t)(at - spec);
        if (tl >= sizeof tname)
            return traza_err_set(err, TRAZA_E_USAGE, "series '%s': type name too long", spec);
        memcpy(tname, spec, tl);
        tname[tl] = '\0';
        ty = traza_trace_event_type_by_name(t, tname);
        if (!ty)
            return traza_err_set(err, TRAZA_E_NOTFOUND, "series '%s': the trace has no event type '%s'", spec, tname);
        type = ty->id;
        const traza_producer *p = traza_trace_producer_find(t, at + 1);
        if (!p)
            return traza_err_set(err, TRAZA_E_NOTFOUND, "series '%s': the trace has no producer '%s'", spec, at + 1);
        if (subtree) {
            if (traza_trace_producer_subtree(t, p->id, &prods, &nprods, err) < 0)
                return -1;
        } else {
            prods = malloc(sizeof *prods);
            if (!prods)
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            prods[0] = p->id;
            nprods = 1;
        }
    } else {
        return traza_err_set(err, TRAZA_E_NOTFOUND,
                             "series '%s': not an event type, TYPE@PRODUCER, or saved event set of the trace", spec);
    }
    int32_t none = -1; /* no such type: the series is empty */
    if (type >= 0) {
        f.types = &type;
        f.ntypes = 1;
        size_t nt = 1;
        tz_ids_keep(&type, &nt, within ? within->types : NULL, within ? within->ntypes : 0);
        if (!nt)
            f.types = &none;
    } else if (within && within->ntypes) {
        f.types = within->types;
        f.ntypes = within->ntypes;
    }
    if (prods) {
        size_t before = nprods;
        tz_ids_keep(prods, &nprods, within ? within->producers : NULL, within ? within->nproducers : 0);
        if (before && !nprods) {
            f.types = &none;
            f.ntypes = 1;
        }
        f.producers = prods;
        f.nproducers = nprods;
    } else if (within && within->nproducers) {
        f.producers = within->producers;
        f.nproducers = within->nproducers;
    }
    int64_t cnt = traza_count(t, &f, err);
    if (cnt < 0 || series_alloc(s, (size_t)cnt, err) < 0) {
        free(prods);
        return -1;
    }
    traza_scan *c = traza_scan_open(t, &f, err);
    if (!c) {
        free(prods);
        traza_series_free(s);
        return -1;
    }
    traza_scan_batch b;
    int rc;
    size_t n = 0;
    while ((rc = traza_scan_next(c, &b, err)) == 1) {
        if (n + b.n > (size_t)cnt) {
            rc = traza_err_set(err, TRAZA_E_INTERNAL, "series '%s': more events than counted", spec);
            break;
        }
        memcpy(s->id + n, b.id, b.n * sizeof *b.id);
        memcpy(s->ts + n, b.ts, b.n * sizeof *b.ts);
        memcpy(s->end + n, b.end_ts, b.n * sizeof *b.end_ts);
        memcpy(s->type + n, b.type, b.n * sizeof *b.type);
        memcpy(s->producer + n, b.producer, b.n * sizeof *b.producer);
        n += b.n;
        pi->covered_to = b.ts[b.n - 1];
        if (tz_progress_step(t, "reading events", n, (uint64_t)cnt, err) < 0) {
            rc = -1;
            break;
        }
        if (stop && stop->fn && stop->fn(stop->ctx, TRAZA_STAGE_READ)) {
            pi->partial = 1;
            break;
        }
    }
    if (rc == 0)
        pi->read_all = 1;
    traza_scan_free(c);
    free(prods);
    if (rc < 0) {
        traza_series_free(s);
        return -1;
    }
    s->n = n;
    snprintf(s->name, sizeof s->name, "%s", spec);
    return 0;
}
