/* Fast scans for analyses: events as arrays of (id, ts, end_ts, type, producer).
 *
 * A backend with the optional s_open/s_next ops runs a narrow query (no parameters,
 * five columns) and fills whole batches; otherwise, and whenever the filter has
 * regular expressions (which need every column) or time ranges, the scan reads through an ordinary
 * cursor. Either way the events and their order are those of traza_query, and the
 * filter's stop applies as it does to a cursor. */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

#define TZ_SCAN_BATCH 4096

struct traza_scan {
    traza_trace *t;
    traza_cursor *cur;  /* generic path */
    tz_qstate *q;       /* backend path */
    int32_t *types_buf, *defs_buf;
    struct tz_bcond *conds_buf;
    int done;           /* 1: at the end; 2: the last batch is out, the end comes next */
    int64_t id[TZ_SCAN_BATCH], ts[TZ_SCAN_BATCH], end[TZ_SCAN_BATCH];
    int32_t type[TZ_SCAN_BATCH], producer[TZ_SCAN_BATCH];
};

traza_scan *traza_scan_open(traza_trace *t, const traza_filter *f, traza_err *err)
{
    traza_scan *s = calloc(1, sizeof *s);
    if (!s) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    s->t = t;
    const tz_backend_ops *ops = t->ws->b->ops;
    traza_filter f2 = *f;
    f2.with_params = 0;
    if (ops->s_open && ops->s_next && !f->nregexes && !f->during) {
        tz_bfilter bf;
        if (tz_make_bfilter(t, &f2, &bf, &s->types_buf, &s->defs_buf, &s->conds_buf, err) < 0) {
            traza_scan_free(s);
            return NULL;
        }
        bf.offset = f->offset;
        bf.limit = f->limit;
        if (bf.empty) {
            s->done = 1;
        } else if (ops->s_open(t->st, &bf, &s->q, err) < 0) {
            s->q = NULL;
            traza_scan_free(s);
            return NULL;
        }
        return s;
    }
    s->cur = traza_query(t, &f2, err);
    if (!s->cur) {
        traza_scan_free(s);
        return NULL;
    }
    return s;
}

int traza_scan_next(traza_scan *s, traza_scan_batch *b, traza_err *err)
{
    memset(b, 0, sizeof *b);
    if (s->done == 1)
        return 0;
    if (s->done == 2) {
        s->done = 1;
        return 0;
    }
    size_t n = 0;
    if (s->q) {
        int64_t got = s->t->ws->b->ops->s_next(s->q, TZ_SCAN_BATCH, s->id, s->ts, s->end, s->type, s->producer, err);
        if (got < 0)
            return -1;
        n = (size_t)got;
    } else {
        const traza_event *ev;
        int rc = 0;
        traza_err e;
        traza_err_clear(&e);
        while (n < TZ_SCAN_BATCH && (rc = traza_cursor_next(s->cur, &ev, &e)) == 1) {
            s->id[n] = ev->id;
            s->ts[n] = ev->ts;
            s->end[n] = (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts;
            s->type[n] = ev->type;
            s->producer[n] = ev->producer;
            n++;
        }
        /* Stopped: the events read before the stop come out first (the cursor repeats
         * the stop on the next call). */
        if (rc < 0 && (n == 0 || e.code != TRAZA_E_CANCELLED)) {
            if (err)
                *err = e;
            return -1;
        }
        if (rc == 0)
            s->done = n == 0 ? 1 : 2; /* a cursor must not be read past its end */
    }
    if (n == 0) {
        s->done = 1;
        return 0;
    }
    b->n = n;
    b->id = s->id;
    b->ts = s->ts;
    b->end_ts = s->end;
    b->type = s->type;
    b->producer = s->producer;
    return 1;
}

void traza_scan_free(traza_scan *s)
{
    if (!s)
        return;
    if (s->q)
        s->t->ws->b->ops->q_close(s->q);
    traza_cursor_free(s->cur);
    tz_bfilter_free(s->types_buf, s->defs_buf, s->conds_buf);
    free(s);
}
