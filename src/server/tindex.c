/* An in-memory time index of a trace for the server: the start time, type and
 * producer of every event in time order, kept for the two most recent traces. Start
 * times are int64; type and producer ids take the narrowest width that holds every
 * id of the trace (1, 2 or 4 bytes), so a trace with fewer than 256 types and
 * producers costs 10 bytes an event. Each producer's events are listed too (their
 * start times and types, 12 bytes an event, and for a producer with states the reach
 * of its states, 12 more: tz_prow), which the timeline's summary rows read.
 *
 * Density, timeline and table requests do not need it on a store with rank look-ups
 * (doc/store.md): they use the index only when it happens to be complete. The
 * aggregation view's exact occurrence counts do; there the index is filled by fast
 * column scans (traza_scan) with part of each request's budget, resuming at the rank
 * where the last request stopped, so no request waits for a whole scan of a big
 * trace. A store without rank look-ups (PostgreSQL) builds it at once, as before.
 * Traces above TZ_TINDEX_MAX events are served by the store alone. */
#include "server/api_internal.h"

#include <stdlib.h>
#include <string.h>

void tz_tindex_free(tz_tindex *ix)
{
    if (!ix)
        return;
    free(ix->ts);
    free(ix->type);
    free(ix->prod);
    for (size_t p = 0; p < ix->nrows; p++) {
        free(ix->rows[p].ts);
        free(ix->rows[p].type);
        free(ix->rows[p].reach);
        free(ix->rows[p].bytype);
    }
    free(ix->rows);
    free(ix);
}

/* Grows *a (n entries of `size` bytes) to nc entries. */
static int grow(void *a, size_t nc, size_t size)
{
    void *na = realloc(*(void **)a, nc * size);
    if (!na)
        return -1;
    *(void **)a = na;
    return 0;
}

/* Appends an event (start ts, end end, type ty) to its producer's row. */
static int row_add(tz_tindex *ix, int32_t pr, int32_t ty, int64_t ts, int64_t end)
{
    if (pr < 0)
        return 0; /* an event without producer has no row */
    size_t p = (size_t)pr;
    if (p >= ix->nrows) {
        size_t nn = ix->nrows ? ix->nrows : 16;
        while (nn <= p)
            nn *= 2;
        tz_prow *nr = realloc(ix->rows, nn * sizeof *nr);
        if (!nr)
            return -1;
        memset(nr + ix->nrows, 0, (nn - ix->nrows) * sizeof *nr);
        ix->rows = nr;
        ix->nrows = nn;
    }
    tz_prow *r = &ix->rows[p];
    if (r->n == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 64;
        if (grow(&r->ts, nc, sizeof *r->ts) < 0 || grow(&r->type, nc, sizeof *r->type) < 0 ||
            (r->reach && (grow(&r->reach, nc, sizeof *r->reach) < 0 || grow(&r->bytype, nc, sizeof *r->bytype) < 0)))
            return -1;
        r->cap = nc;
    }
    if (!r->reach && end > ts) {
        /* the producer's first state: its punctual events so far reach their starts */
        r->reach = malloc(r->cap * sizeof *r->reach);
        r->bytype = malloc(r->cap * sizeof *r->bytype);
        if (!r->reach || !r->bytype) {
            free(r->reach);
            free(r->bytype);
            r->reach = NULL;
            r->bytype = NULL;
            return -1;
        }
        memcpy(r->reach, r->ts, r->n * sizeof *r->reach);
        memcpy(r->bytype, r->type, r->n * sizeof *r->bytype);
    }
    r->ts[r->n] = ts;
    r->type[r->n] = ty;
    if (r->reach) {
        int64_t e = end > ts ? end : ts;
        if (r->n && r->reach[r->n - 1] >= e) {
            r->reach[r->n] = r->reach[r->n - 1];
            r->bytype[r->n] = r->bytype[r->n - 1];
        } else {
            r->reach[r->n] = e;
            r->bytype[r->n] = ty;
        }
    }
    r->n++;
    return 0;
}

static int width_of(int32_t v)
{
    return v >= 0 && v <= UINT8_MAX ? 1 : v >= 0 && v <= UINT16_MAX ? 2 : 4;
}

/* Widens column *a (cap entries, k used) from width *w to w2 bytes. */
static int widen(void **a, int *w, int w2, size_t cap, size_t k)
{
    void *na = malloc((cap ? cap : 1) * (size_t)w2);
    if (!na)
        return -1;
    for (size_t i = 0; i < k; i++) {
        int32_t v = tz_tindex_col(*a, *w, i);
        if (w2 == 2)
            ((uint16_t *)na)[i] = (uint16_t)v;
        else
            ((int32_t *)na)[i] = v;
    }
    free(*a);
    *a = na;
    *w = w2;
    return 0;
}

static void put(void *a, int w, size_t i, int32_t v)
{
    if (w == 1)
        ((uint8_t *)a)[i] = (uint8_t)v;
    else if (w == 2)
        ((uint16_t *)a)[i] = (uint16_t)v;
    else
        ((int32_t *)a)[i] = v;
}

static tz_tindex *tindex_new(traza_trace *t, traza_err *err)
{
    const traza_trace_info *info = traza_trace_info_of(t);
    tz_tindex *ix = calloc(1, sizeof *ix);
    size_t n = (size_t)(info->events > 0 ? info->events : 0);
    if (ix) {
        ix->wtype = ix->wprod = 1;
        ix->cap = n;
        ix->ts = malloc((n ? n : 1) * sizeof *ix->ts);
        ix->type = malloc(n ? n : 1);
        ix->prod = malloc(n ? n : 1);
    }
    if (!ix || !ix->ts || !ix->type || !ix->prod) {
        tz_tindex_free(ix);
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the time index of %zu events", n);
        return NULL;
    }
    ix->trace_id = info->id;
    ix->complete = n == 0;
    return ix;
}

/* Appends events from rank ix->n on (a scan whose offset is id arithmetic, see
 * doc/store.md) until the index is complete or, with a deadline (> 0), the deadline
 * passes between two batches. Only the request that set ix->filling calls it; it
 * returns 1 when the index is complete, 0 when not yet, -1 on error. */
static int tindex_fill(traza_trace *t, tz_tindex *ix, int64_t deadline, traza_err *err)
{
    size_t n = ix->cap, k = ix->n;
    traza_filter f;
    traza_filter_init(&f);
    f.offset = (int64_t)k;
    traza_scan *s = traza_scan_open(t, &f, err);
    if (!s)
        return -1;
    traza_scan_batch b;
    int rc = 0;
    while (k < n && (rc = traza_scan_next(s, &b, err)) > 0) {
        size_t m = b.n;
        if (m > n - k)
            m = n - k; /* never beyond the count the trace announced */
        memcpy(ix->ts + k, b.ts, m * sizeof *b.ts);
        for (size_t i = 0; i < m; i++) {
            int32_t ty = b.type[i], pr = b.producer[i];
            int wt = width_of(ty), wp = width_of(pr);
            if ((wt > ix->wtype && widen(&ix->type, &ix->wtype, wt, n, k + i) < 0) ||
                (wp > ix->wprod && widen(&ix->prod, &ix->wprod, wp, n, k + i) < 0)) {
                traza_scan_free(s);
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the time index of %zu events", n);
            }
            put(ix->type, ix->wtype, k + i, ty);
            put(ix->prod, ix->wprod, k + i, pr);
            if (row_add(ix, pr, ty, b.ts[i], b.end_ts[i]) < 0) {
                traza_scan_free(s);
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the time index of %zu events", n);
            }
        }
        k += m;
        ix->n = k;
        if (deadline > 0 && tz_now_ns() >= deadline)
            break;
    }
    traza_scan_free(s);
    if (rc < 0)
        return -1;
    if (k < n && rc == 0)
        ix->cap = k; /* the store holds fewer events than announced */
    return k == ix->cap;
}

/* Drops one reference (under sh->mu); the last one frees an index evicted meanwhile. */
static void unref(tz_tindex *ix)
{
    if (--ix->refs == 0)
        tz_tindex_free(ix);
}

/* The cached index of a trace (complete or being filled), marked as just used. */
static tz_tindex *find(tz_shared *sh, int64_t trace_id)
{
    for (int i = 0; i < TZ_TINDEX_CACHE; i++)
        if (sh->tix[i] && sh->tix[i]->trace_id == trace_id) {
            sh->tix[i]->used = ++sh->clock;
            return sh->tix[i];
        }
    return NULL;
}

/* The trace's index in the cache, or a new one put there (under sh->mu). The least
 * recently used index leaves the cache; requests holding it keep it until they end. */
static tz_tindex *slot_for(tz_shared *sh, traza_trace *t)
{
    tz_tindex *found = find(sh, traza_trace_info_of(t)->id);
    if (found)
        return found;
    traza_err err;
    traza_err_clear(&err);
    tz_tindex *ix = tindex_new(t, &err);
    if (!ix)
        return NULL;
    int victim = 0;
    for (int i = 0; i < TZ_TINDEX_CACHE; i++) {
        if (!sh->tix[i]) { victim = i; break; }
        if (sh->tix[i]->used < sh->tix[victim]->used)
            victim = i;
    }
    if (sh->tix[victim]) {
        sh->tix[victim]->cached = 0;
        unref(sh->tix[victim]);
    }
    ix->used = ++sh->clock;
    ix->refs = 1;
    ix->cached = 1;
    sh->tix[victim] = ix;
    return ix;
}

/* The request takes a reference on ix (under sh->mu); 0, or -1 when it holds too many. */
static int hold(tz_req *r, tz_tindex *ix)
{
    for (size_t i = 0; i < r->nheld; i++)
        if (r->held[i] == ix)
            return 0;
    if (r->nheld == TZ_REQ_MAX_HELD)
        return -1;
    ix->refs++;
    r->held[r->nheld++] = ix;
    return 0;
}

void tz_req_release(tz_req *r)
{
    if (!r->nheld)
        return;
    tz_shared *sh = r->api->sh;
    pthread_mutex_lock(&sh->mu);
    for (size_t i = 0; i < r->nheld; i++)
        unref(r->held[i]);
    pthread_mutex_unlock(&sh->mu);
    r->nheld = 0;
}

/* Fills the trace's index until `deadline` (0 = to the end): the index when complete,
 * else NULL (the store answers; the next call goes on where this one stopped). While
 * one request fills an index, the others do not wait for it: they use the store. */
static const tz_tindex *index_until(tz_req *r, traza_trace *t, int64_t deadline)
{
    if (traza_trace_info_of(t)->events > TZ_TINDEX_MAX)
        return NULL;
    tz_shared *sh = r->api->sh;
    pthread_mutex_lock(&sh->mu);
    tz_tindex *ix = slot_for(sh, t);
    if (!ix || (!ix->complete && ix->filling) || hold(r, ix) < 0) {
        pthread_mutex_unlock(&sh->mu);
        return NULL;
    }
    if (ix->complete) {
        pthread_mutex_unlock(&sh->mu);
        return ix;
    }
    ix->filling = 1;
    pthread_mutex_unlock(&sh->mu);
    traza_err err;
    traza_err_clear(&err);
    int done = tindex_fill(t, ix, deadline, &err);
    pthread_mutex_lock(&sh->mu);
    ix->filling = 0;
    ix->complete = done == 1;
    pthread_mutex_unlock(&sh->mu);
    return done == 1 ? ix : NULL;
}

const tz_tindex *tz_req_tindex(tz_req *r, traza_trace *t) { return index_until(r, t, 0); }

const tz_tindex *tz_req_tindex_within(tz_req *r, traza_trace *t, int64_t deadline)
{
    return index_until(r, t, tz_store_has_ranks(t) ? deadline : 0);
}

static const tz_tindex *cached(tz_req *r, int64_t trace_id)
{
    tz_shared *sh = r->api->sh;
    pthread_mutex_lock(&sh->mu);
    tz_tindex *ix = find(sh, trace_id);
    if (ix && (!ix->complete || hold(r, ix) < 0))
        ix = NULL;
    pthread_mutex_unlock(&sh->mu);
    return ix;
}

int tz_store_has_ranks(traza_trace *t)
{
    traza_err err;
    traza_err_clear(&err);
    return traza_ranks_of(t, NULL, 0, NULL, &err) == 0;
}

const tz_tindex *tz_req_tindex_opt(tz_req *r, traza_trace *t)
{
    const tz_tindex *ix = cached(r, traza_trace_info_of(t)->id);
    if (ix || tz_store_has_ranks(t))
        return ix;
    return tz_req_tindex(r, t);
}

int tz_req_ranks(tz_req *r, traza_trace *t, const int64_t *x, size_t n, int64_t *rank)
{
    const tz_tindex *ix = tz_req_tindex_opt(r, t);
    if (ix) {
        for (size_t i = 0; i < n; i++)
            rank[i] = (int64_t)tz_tindex_first_ge(ix, x[i]);
        return 0;
    }
    if (tz_store_has_ranks(t))
        return traza_ranks_of(t, x, n, rank, &r->err);
    /* neither: the store's counts, one per bound */
    traza_filter f;
    traza_filter_init(&f);
    f.has_to = 1;
    for (size_t i = 0; i < n; i++) {
        if (x[i] == INT64_MIN) {
            rank[i] = 0;
            continue;
        }
        f.to = x[i] - 1;
        if ((rank[i] = traza_count(t, &f, &r->err)) < 0)
            return -1;
    }
    return 0;
}

int tz_req_slice_ranks(tz_req *r, traza_trace *t, int64_t from, int64_t to, size_t n, int64_t *rank)
{
    int64_t *x = malloc((n + 1) * sizeof *x);
    if (!x)
        return traza_err_set(&r->err, TRAZA_E_NOMEM, "out of memory");
    __int128 span = (__int128)to - from + 1;
    size_t nx = 0;
    for (size_t i = 0; i <= n; i++) {
        __int128 a = from + span * (__int128)i / (__int128)n;
        if (a > INT64_MAX)
            break; /* a bound past INT64_MAX (to = INT64_MAX): every event is before it */
        x[nx++] = (int64_t)a;
    }
    int rc = tz_req_ranks(r, t, x, nx, rank);
    free(x);
    for (size_t i = nx; i <= n; i++)
        rank[i] = traza_trace_info_of(t)->events;
    return rc;
}

size_t tz_tindex_first_ge(const tz_tindex *ix, int64_t x)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->ts[mid] >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

size_t tz_tindex_first_gt(const tz_tindex *ix, int64_t x)
{
    return x == INT64_MAX ? ix->n : tz_tindex_first_ge(ix, x + 1);
}

int tz_filter_time_only(const traza_filter *f)
{
    return !f->types && !f->producers && !f->categories && !f->nconds && !f->nregexes && !f->event_set && !f->during && !f->overlap;
}
