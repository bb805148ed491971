/* The parameter values index, param_value ON param(def, value), written by the page
 * writer: the param records are read back from their spool, sorted in memory in
 * SQLite's index order, and handed to tz_dbfile_put_index as (def, value, event)
 * records (the index of a WITHOUT ROWID table ends with the primary key columns it
 * does not already hold: event).
 *
 * SQLite's order for a value of no declared type: NULL, then numbers (integers and
 * reals compared by value, exactly), then text (BINARY collation: bytes, then
 * length). CREATE INDEX sorts the same entries with its external merge sorter,
 * which costs about three quarters of an import with parameters; this sort does
 * it in a fraction. Beyond the memory budget the caller lets CREATE INDEX do it.
 *
 * Text values repeat (function names, addresses, states): each distinct text is kept
 * once in the arena, the distinct texts are sorted once, and the entries then sort
 * by the rank of their text, an integer compare instead of a memcmp through the
 * arena. */
#include "store/sqlite_pvindex.h"

#include <stdlib.h>
#include <string.h>

#include "store/sqlite_btree.h"

enum { CL_NULL, CL_NUM, CL_TEXT };

typedef struct pv_ent {
    int64_t event;
    union {
        int64_t i; /* integer; text: the id of its distinct text, then its rank */
        double d;
    } v;
    int32_t def;
    uint8_t cls, is_real;
} pv_ent;

/* A distinct text: where it is in the arena. */
typedef struct pv_text {
    uint64_t off;
    uint32_t len;
} pv_text;

typedef struct pv_sort {
    pv_ent *e;
    size_t n, cap, k;
    tz_buf str;       /* the arena: each distinct text once */
    pv_text *texts;   /* by id while loading, by rank once sorted */
    size_t ntexts, captexts;
    uint32_t *slots;  /* open addressing: id + 1, 0 = empty */
    size_t nslots;
    tz_buf rec;
} pv_sort;

size_t tz_pv_bytes(uint64_t nparams, uint64_t string_bytes) { return (size_t)(nparams * sizeof(pv_ent) + string_bytes); }

/* integer vs real, exactly (as SQLite compares them) */
static int cmp_int_real(int64_t i, double d)
{
    if (d < -9223372036854775808.0)
        return 1;
    if (d >= 9223372036854775808.0)
        return -1;
    int64_t y = (int64_t)d;
    if (i != y)
        return i < y ? -1 : 1;
    double s = (double)i;
    return s < d ? -1 : s > d;
}

static int cmp_ent(const pv_ent *a, const pv_ent *b)
{
    if (a->def != b->def)
        return a->def < b->def ? -1 : 1;
    if (a->cls != b->cls)
        return a->cls < b->cls ? -1 : 1;
    int c = 0;
    if (a->cls == CL_NUM) {
        if (!a->is_real && !b->is_real)
            c = a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
        else if (a->is_real && b->is_real)
            c = a->v.d < b->v.d ? -1 : a->v.d > b->v.d;
        else if (!a->is_real)
            c = cmp_int_real(a->v.i, b->v.d);
        else
            c = -cmp_int_real(b->v.i, a->v.d);
    } else if (a->cls == CL_TEXT) {
        c = a->v.i < b->v.i ? -1 : a->v.i > b->v.i; /* ranks */
    }
    if (c)
        return c;
    return a->event < b->event ? -1 : a->event > b->event;
}

/* A merge sort, stable and fast on runs already in order. */
static void sort_ents(pv_ent *e, pv_ent *tmp, size_t n)
{
    if (n < 2)
        return;
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            pv_ent x = e[i];
            size_t j = i;
            for (; j > 0 && cmp_ent(&e[j - 1], &x) > 0; j--)
                e[j] = e[j - 1];
            e[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    sort_ents(e, tmp, h);
    sort_ents(e + h, tmp, n - h);
    if (cmp_ent(&e[h - 1], &e[h]) <= 0)
        return; /* already in order (common: values grow with time) */
    memcpy(tmp, e, h * sizeof *e);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        e[k++] = cmp_ent(&tmp[i], &e[j]) <= 0 ? tmp[i++] : e[j++];
    while (i < h)
        e[k++] = tmp[i++];
}

static int pv_next(void *ctx, const unsigned char **recb, size_t *n, traza_err *err)
{
    pv_sort *s = ctx;
    if (s->k == s->n)
        return 0;
    const pv_ent *x = &s->e[s->k++];
    tz_bt_col c[3];
    memset(c, 0, sizeof c);
    c[0].kind = TZ_BT_INT;
    c[0].i = x->def;
    if (x->cls == CL_NULL) {
        c[1].kind = TZ_BT_NULL;
    } else if (x->cls == CL_TEXT) {
        c[1].kind = TZ_BT_TEXT;
        c[1].s = s->str.s + s->texts[x->v.i].off;
        c[1].slen = s->texts[x->v.i].len;
    } else if (x->is_real) {
        c[1].kind = TZ_BT_REAL;
        c[1].d = x->v.d;
    } else {
        c[1].kind = TZ_BT_INT;
        c[1].i = x->v.i;
    }
    c[2].kind = TZ_BT_INT;
    c[2].i = x->event;
    tz_buf_reset(&s->rec);
    tz_bt_record(c, 3, 1, &s->rec);
    if (s->rec.oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    *recb = (const unsigned char *)s->rec.s;
    *n = s->rec.len;
    return 1;
}

/* The id of a text, added to the arena when new; -1 when out of memory. */
static int64_t intern(pv_sort *s, const char *p, size_t len)
{
    if (s->ntexts * 2 >= s->nslots) {
        size_t n = s->nslots ? s->nslots * 2 : 1024;
        uint32_t *slots = calloc(n, sizeof *slots);
        if (!slots || s->ntexts >= UINT32_MAX - 1) {
            free(slots);
            return -1;
        }
        for (size_t i = 0; i < s->ntexts; i++) {
            size_t k = (size_t)tz_hash_bytes(s->str.s + s->texts[i].off, s->texts[i].len) & (n - 1);
            while (slots[k])
                k = (k + 1) & (n - 1);
            slots[k] = (uint32_t)i + 1;
        }
        free(s->slots);
        s->slots = slots;
        s->nslots = n;
    }
    size_t k = (size_t)tz_hash_bytes(p, len) & (s->nslots - 1);
    for (; s->slots[k]; k = (k + 1) & (s->nslots - 1)) {
        const pv_text *t = &s->texts[s->slots[k] - 1];
        if (t->len == len && memcmp(s->str.s + t->off, p, len) == 0)
            return s->slots[k] - 1;
    }
    if (len > UINT32_MAX || TZ_GROW(s->texts, s->captexts, s->ntexts + 1) < 0)
        return -1;
    s->texts[s->ntexts] = (pv_text){s->str.len, (uint32_t)len};
    tz_buf_put(&s->str, p, len);
    if (s->str.oom)
        return -1;
    s->slots[k] = (uint32_t)s->ntexts + 1;
    return (int64_t)s->ntexts++;
}

/* SQLite's BINARY order of two texts: bytes, then length. */
static int cmp_text(const char *arena, const pv_text *a, const pv_text *b)
{
    size_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(arena + a->off, arena + b->off, m);
    return c ? c : a->len < b->len ? -1 : a->len > b->len;
}

/* Sorts the distinct texts (a merge sort of their ids with the arena as context:
 * qsort_r is not in C11), then turns every text entry's id into its rank. */
static int rank_texts(pv_sort *s)
{
    size_t n = s->ntexts;
    if (n == 0)
        return 0;
    uint32_t *id = malloc(n * sizeof *id), *tmp = malloc(n * sizeof *tmp), *rank = malloc(n * sizeof *rank);
    pv_text *sorted = malloc(n * sizeof *sorted);
    if (!id || !tmp || !rank || !sorted) {
        free(id);
        free(tmp);
        free(rank);
        free(sorted);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        id[i] = (uint32_t)i;
    for (size_t w = 1; w < n; w *= 2) { /* bottom-up merge sort */
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = cmp_text(s->str.s, &s->texts[id[i]], &s->texts[id[j]]) <= 0 ? id[i++] : id[j++];
            while (i < mid)
                tmp[k++] = id[i++];
            while (j < hi)
                tmp[k++] = id[j++];
        }
        uint32_t *t = id;
        id = tmp;
        tmp = t;
    }
    for (size_t r = 0; r < n; r++) {
        rank[id[r]] = (uint32_t)r;
        sorted[r] = s->texts[id[r]];
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->e[i].cls == CL_TEXT)
            s->e[i].v.i = rank[s->e[i].v.i];
    free(s->texts);
    s->texts = sorted;
    s->captexts = n;
    free(id);
    free(tmp);
    free(rank);
    return 0;
}

int tz_pv_write(tz_dbfile *f, uint32_t root, tz_rec_spool *ps, traza_err *err)
{
    pv_sort s;
    memset(&s, 0, sizeof s);
    tz_buf_init(&s.str);
    tz_buf_init(&s.rec);
    uint64_t count = tz_rec_spool_count(ps);
    int rc = tz_rec_spool_rewind(ps, err);
    if (rc == 0 && count) {
        s.e = malloc(count * sizeof *s.e);
        if (!s.e)
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the parameter index (%llu entries)", (unsigned long long)count);
    }
    for (uint64_t j = 0; rc == 0 && j < count; j++) {
        const unsigned char *r;
        size_t n, slen;
        int got = tz_rec_spool_next(ps, &r, &n, err);
        if (got <= 0) {
            rc = got < 0 ? -1 : traza_err_set(err, TRAZA_E_FORMAT, "parameter spool ended after %llu of %llu", (unsigned long long)j,
                                               (unsigned long long)count);
            break;
        }
        pv_ent *x = &s.e[s.n];
        traza_value v;
        memset(x, 0, sizeof *x);
        if (tz_bt_param_decode(r, n, &x->event, &x->def, &v, &slen) < 0) {
            rc = traza_err_set(err, TRAZA_E_FORMAT, "parameter spool: unreadable record %llu", (unsigned long long)j);
            break;
        }
        if (v.kind == TRAZA_PT_STRING) {
            x->cls = CL_TEXT;
            if ((x->v.i = intern(&s, v.s, slen)) < 0)
                rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        } else if (v.kind == TRAZA_PT_DOUBLE) {
            x->cls = v.d != v.d ? CL_NULL : CL_NUM; /* NaN: stored as NULL */
            x->is_real = 1;
            x->v.d = v.d;
        } else {
            x->cls = CL_NUM;
            x->v.i = v.i;
        }
        s.n++;
    }
    free(s.slots);
    s.slots = NULL;
    if (rc == 0 && rank_texts(&s) < 0)
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (rc == 0 && s.n) {
        pv_ent *tmp = malloc((s.n / 2 + 1) * sizeof *tmp);
        if (!tmp)
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        else
            sort_ents(s.e, tmp, s.n);
        free(tmp);
    }
    if (rc == 0)
        rc = tz_dbfile_put_index(f, root, s.n, pv_next, &s, err);
    free(s.e);
    free(s.texts);
    tz_buf_free(&s.str);
    tz_buf_free(&s.rec);
    return rc;
}
