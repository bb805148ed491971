/* Sequence search: instances of a pattern of event types (A then B [then C ...]),
 * optionally per producer and with a maximum gap; the other events of those types
 * are the exceptions. */
#include "traza/analysis.h"
#include "analysis/progress.h"
#include "tools/tool_filter.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

void traza_seq_result_free(traza_seq_result *r)
{
    if (!r)
        return;
    free(r->inst);
    free(r->exceptions);
    memset(r, 0, sizeof *r);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

typedef struct seq_state {
    size_t stage;
    int64_t last;
} seq_state;

int traza_seqsearch_arrays(const int64_t *id, const int64_t *ts, const int32_t *type, const int32_t *producer, size_t n,
                           const int32_t *types, size_t len, int per_producer, int64_t max_gap, traza_seq_result *out,
                           traza_err *err)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "the pattern is empty: give event types 'A,B[,C...]'");
    out->len = len;
    int32_t maxp = 0;
    if (per_producer)
        for (size_t i = 0; i < n; i++)
            if (producer[i] > maxp)
                maxp = producer[i];
    size_t nst = per_producer ? (size_t)maxp + 1 : 1;
    seq_state *st = calloc(nst, sizeof *st);
    int64_t *pend = malloc(nst * len * sizeof *pend);
    size_t capi = 0, cape = 0;
    if (!st || !pend) {
        free(st);
        free(pend);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
#define EXC(x) do { if (TZ_GROW(out->exceptions, cape, out->nexceptions + 1) < 0) goto oom; out->exceptions[out->nexceptions++] = (x); } while (0)
    for (size_t i = 0; i < n; i++) {
        int in = 0;
        for (size_t k = 0; k < len && !in; k++)
            in = types[k] == type[i];
        if (!in)
            continue;
        size_t key = per_producer ? (size_t)(producer[i] < 0 ? 0 : producer[i]) : 0;
        seq_state *s = &st[key];
        int64_t *p = pend + key * len;
        if (s->stage > 0 && max_gap > 0 && ts[i] - s->last > max_gap) {
            for (size_t k = 0; k < s->stage; k++)
                EXC(p[k]);
            s->stage = 0;
        }
        if (s->stage > 0 && type[i] == types[s->stage]) {
            p[s->stage++] = id[i];
            s->last = ts[i];
        } else if (type[i] == types[0]) {
            for (size_t k = 0; k < s->stage; k++)
                EXC(p[k]);
            p[0] = id[i];
            s->stage = 1;
            s->last = ts[i];
        } else {
            EXC(id[i]);
            continue;
        }
        if (s->stage == len) {
            if (TZ_GROW(out->inst, capi, (out->ninstances + 1) * len) < 0)
                goto oom;
            memcpy(out->inst + out->ninstances * len, p, len * sizeof *p);
            out->ninstances++;
            s->stage = 0;
        }
    }
    for (size_t key = 0; key < nst; key++)
        for (size_t k = 0; k < st[key].stage; k++)
            EXC(pend[key * len + k]);
#undef EXC
    if (out->nexceptions > 1)
        qsort(out->exceptions, out->nexceptions, sizeof *out->exceptions, cmp_i64);
    free(st);
    free(pend);
    return 0;
oom:
    free(st);
    free(pend);
    traza_seq_result_free(out);
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
}

int traza_seqsearch(traza_trace *t, const traza_filter *within, const int32_t *types, size_t len, int per_producer,
                    int64_t max_gap, traza_seq_result *out, traza_err *err)
{
    memset(out, 0, sizeof *out);
    traza_filter f = tz_filter_all_of(within);
    /* the pattern's types that the filter keeps (none kept: type -1, no events) */
    int32_t *kept = malloc((len ? len : 1) * sizeof *kept);
    if (!kept)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    size_t nk = len;
    if (len)
        memcpy(kept, types, len * sizeof *kept);
    tz_ids_keep(kept, &nk, within ? within->types : NULL, within ? within->ntypes : 0);
    if (!nk)
        kept[0] = -1;
    f.types = kept;
    f.ntypes = nk ? nk : 1;
    int64_t cnt = traza_count(t, &f, err);
    if (cnt < 0) {
        free(kept);
        return -1;
    }
    size_t m = cnt > 0 ? (size_t)cnt : 1;
    int64_t *id = malloc(m * sizeof *id), *ts = malloc(m * sizeof *ts);
    int32_t *ty = malloc(m * sizeof *ty), *pr = malloc(m * sizeof *pr);
    int rc = -1;
    if (!id || !ts || !ty || !pr) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    traza_scan *c = traza_scan_open(t, &f, err);
    if (!c)
        goto done;
    traza_scan_batch bt;
    size_t n = 0;
    int r;
    while ((r = traza_scan_next(c, &bt, err)) == 1) {
        size_t k = bt.n;
        if (k > (size_t)cnt - n)
            k = (size_t)cnt - n;
        memcpy(id + n, bt.id, k * sizeof *id);
        memcpy(ts + n, bt.ts, k * sizeof *ts);
        memcpy(ty + n, bt.type, k * sizeof *ty);
        memcpy(pr + n, bt.producer, k * sizeof *pr);
        n += k;
        if (tz_progress_step(t, "reading events", n, (uint64_t)cnt, err) < 0) {
            r = -1;
            break;
        }
    }
    traza_scan_free(c);
    if (r < 0)
        goto done;
    rc = traza_seqsearch_arrays(id, ts, ty, pr, n, types, len, per_producer, max_gap, out, err);
done:
    free(kept);
    free(id);
    free(ts);
    free(ty);
    free(pr);
    return rc;
}
