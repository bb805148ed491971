/* The `event` table of a packed store (doc/store.md, "Packed events"): a virtual
 * table of the connection, over the blocks of `event_pack` and the posting lists of
 * `event_tp`, with the columns and the order of the plain `event` table, so that every
 * statement of the store, and the SQL views, read either layout alike.
 *
 * - An id range (id = ?, id > ?, ...) is a walk of the blocks from the one holding
 *   its first id, either way.
 * - A type or producer condition (=, or IN handled whole) is answered from the
 *   posting lists of the (type, producer) pairs it selects when they are few (merged
 *   in id order), else by the walk, testing each event. Ids are known before any
 *   block is read: count(*) reads posting lists only.
 * Every block and posting list is checked as it is decoded (a store file may come
 * from anywhere): a damaged one fails the statement with SQLITE_CORRUPT and where. */
#include "store/sqlite_internal.h"
#include "store/event_pack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { C_ID, C_TS, C_TYPE, C_PRODUCER, C_END_TS, C_END_PRODUCER, C_LEVEL, C_VALUE, C_CPU };

/* idxNum bits */
#define X_LO 0x1      /* argv: a lower id bound */
#define X_LO_GT 0x2   /* ... strict */
#define X_HI 0x4      /* argv: an upper id bound */
#define X_HI_LT 0x8   /* ... strict */
#define X_EQ 0x10     /* argv: the id */
#define X_TYPE 0x20   /* argv: the type (=) */
#define X_TYPE_IN 0x40 /* ... a whole IN list */
#define X_PROD 0x80
#define X_PROD_IN 0x100
#define X_DESC 0x200

/* Type and producer ids the writer gives are dense from 0; a larger one in event_tp
 * is damage (and the masks over them stay under 64 MiB). */
#define MAX_ID ((int64_t)1 << 26)

/* Posting lists are merged when the pairs they cover are at most this many. */
#define MAX_STREAMS 64

typedef struct pk_key {
    int32_t type, producer;
    int64_t chunks;
} pk_key;

typedef struct pk_vtab {
    sqlite3_vtab base;
    sqlite3 *db;
    int64_t nevents;
    pk_key *keys; /* (type, producer) pairs of event_tp, in key order */
    size_t nkeys;
    int32_t max_type, max_prod;
} pk_vtab;

/* One pair's posting list, read a chunk at a time. */
typedef struct pk_stream {
    int32_t type, producer;
    int64_t ids[TZ_PACK_IDS];
    long n, i; /* ids of the chunk; the current one (-1 or n: none) */
    int done;
} pk_stream;

typedef struct pk_cur {
    sqlite3_vtab_cursor base;
    pk_vtab *vt;
    int desc, eof, postings;
    int64_t lo, hi;
    uint8_t *tmask, *pmask; /* selected types / producers (NULL: all) */
    /* walk */
    sqlite3_stmt *walk;   /* the running one of walk_st (NULL: the cached block only) */
    sqlite3_stmt *walk_st[2]; /* ascending, descending: prepared once per cursor */
    tz_pack_block *blk;   /* the last block read, kept across filters (an IN list of
                           * ids calls xFilter once per id, mostly in one block) */
    int have_blk;
    long bi;              /* current event in blk */
    /* postings */
    pk_stream *s;
    size_t ns;
    size_t cur_s;         /* the stream holding the current id */
    sqlite3_stmt *chunk_after, *chunk_before, *chunk_at, *block_at;
    int64_t id;           /* current id */
} pk_cur;

static int vt_error(sqlite3_vtab *vt, int rc, const char *msg)
{
    sqlite3_free(vt->zErrMsg);
    vt->zErrMsg = sqlite3_mprintf("%s", msg);
    return rc;
}

static int corrupt(pk_cur *c, const char *what, int64_t at)
{
    sqlite3_free(c->vt->base.zErrMsg);
    c->vt->base.zErrMsg = sqlite3_mprintf("packed events: the %s at id %lld is damaged", what, (long long)at);
    return SQLITE_CORRUPT;
}

static int pk_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **errmsg)
{
    (void)aux;
    (void)argc;
    (void)argv;
    int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(id INTEGER, ts INTEGER, type INTEGER, producer INTEGER, end_ts INTEGER,"
                                      " end_producer INTEGER, level INTEGER, value REAL, cpu INTEGER)");
    if (rc != SQLITE_OK)
        return rc;
    pk_vtab *vt = sqlite3_malloc(sizeof *vt);
    if (!vt)
        return SQLITE_NOMEM;
    memset(vt, 0, sizeof *vt);
    vt->db = db;
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(db, "SELECT value FROM main.meta WHERE key='events'", -1, &st, NULL);
    if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        vt->nevents = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "SELECT type, producer, count(*) FROM main.event_tp GROUP BY type, producer ORDER BY type, producer",
                                -1, &st, NULL);
    size_t cap = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t ty = sqlite3_column_int64(st, 0), pr = sqlite3_column_int64(st, 1);
        if (ty < 0 || ty > MAX_ID || pr < 0 || pr > MAX_ID) {
            rc = SQLITE_CORRUPT;
            break;
        }
        if (TZ_GROW(vt->keys, cap, vt->nkeys + 1) < 0) {
            rc = SQLITE_NOMEM;
            break;
        }
        vt->keys[vt->nkeys++] = (pk_key){(int32_t)ty, (int32_t)pr, sqlite3_column_int64(st, 2)};
        if (ty > vt->max_type)
            vt->max_type = (int32_t)ty;
        if (pr > vt->max_prod)
            vt->max_prod = (int32_t)pr;
        rc = SQLITE_OK;
    }
    if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        *errmsg = sqlite3_mprintf("packed events: cannot read the posting lists: %s",
                                  rc == SQLITE_CORRUPT ? "a type or producer id out of range" : sqlite3_errmsg(db));
        free(vt->keys);
        sqlite3_free(vt);
        return rc;
    }
    *out = &vt->base;
    return SQLITE_OK;
}

static int pk_disconnect(sqlite3_vtab *base)
{
    pk_vtab *vt = (pk_vtab *)base;
    free(vt->keys);
    sqlite3_free(vt);
    return SQLITE_OK;
}

static int pk_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
    pk_vtab *vt = (pk_vtab *)base;
    int lo = -1, hi = -1, eq = -1, ty = -1, pr = -1, num = 0;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *k = &info->aConstraint[i];
        if (!k->usable)
            continue;
        int col = k->iColumn < 0 ? C_ID : k->iColumn;
        unsigned char op = k->op;
        if (col == C_ID) {
            if (op == SQLITE_INDEX_CONSTRAINT_EQ && eq < 0)
                eq = i;
            else if ((op == SQLITE_INDEX_CONSTRAINT_GT || op == SQLITE_INDEX_CONSTRAINT_GE) && lo < 0)
                lo = i, num |= op == SQLITE_INDEX_CONSTRAINT_GT ? X_LO_GT : 0;
            else if ((op == SQLITE_INDEX_CONSTRAINT_LT || op == SQLITE_INDEX_CONSTRAINT_LE) && hi < 0)
                hi = i, num |= op == SQLITE_INDEX_CONSTRAINT_LT ? X_HI_LT : 0;
        } else if ((col == C_TYPE || col == C_PRODUCER) && op == SQLITE_INDEX_CONSTRAINT_EQ) {
            if (col == C_TYPE && ty < 0)
                ty = i;
            else if (col == C_PRODUCER && pr < 0)
                pr = i;
        }
    }
    int argc = 0;
    double rows = vt->nevents > 0 ? (double)vt->nevents : 1;
    if (eq >= 0) {
        num |= X_EQ;
        num &= ~(X_LO_GT | X_HI_LT);
        info->aConstraintUsage[eq].argvIndex = ++argc;
        rows = 1;
        info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
    } else {
        if (lo >= 0) {
            num |= X_LO;
            info->aConstraintUsage[lo].argvIndex = ++argc;
            rows /= 4;
        } else {
            num &= ~X_LO_GT;
        }
        if (hi >= 0) {
            num |= X_HI;
            info->aConstraintUsage[hi].argvIndex = ++argc;
            rows /= 4;
        } else {
            num &= ~X_HI_LT;
        }
    }
    /* type and producer: decided exactly by xFilter (omitted), an IN list whole */
    if (ty >= 0) {
        num |= X_TYPE;
        if (sqlite3_vtab_in(info, ty, 1))
            num |= X_TYPE_IN;
        info->aConstraintUsage[ty].argvIndex = ++argc;
        info->aConstraintUsage[ty].omit = 1;
        rows /= vt->nkeys > 1 ? 8 : 1;
    }
    if (pr >= 0) {
        num |= X_PROD;
        if (sqlite3_vtab_in(info, pr, 1))
            num |= X_PROD_IN;
        info->aConstraintUsage[pr].argvIndex = ++argc;
        info->aConstraintUsage[pr].omit = 1;
        rows /= 2;
    }
    if (rows < 1)
        rows = 1;
    if (info->nOrderBy == 1 && (info->aOrderBy[0].iColumn == C_ID || info->aOrderBy[0].iColumn < 0)) {
        info->orderByConsumed = 1;
        if (info->aOrderBy[0].desc)
            num |= X_DESC;
    }
    info->idxNum = num;
    info->estimatedRows = (sqlite3_int64)rows;
    info->estimatedCost = rows + 10;
    return SQLITE_OK;
}

static int pk_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
    pk_cur *c = calloc(1, sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    c->blk = malloc(sizeof *c->blk);
    if (!c->blk) {
        free(c);
        return SQLITE_NOMEM;
    }
    c->vt = (pk_vtab *)base;
    *out = &c->base;
    return SQLITE_OK;
}

/* Before a new filter: statements reset (kept prepared), masks and streams freed. */
static void reset(pk_cur *c)
{
    if (c->walk)
        sqlite3_reset(c->walk);
    c->walk = NULL;
    sqlite3_stmt *st[3] = {c->chunk_after, c->chunk_before, c->chunk_at};
    for (int i = 0; i < 3; i++)
        if (st[i])
            sqlite3_reset(st[i]);
    free(c->tmask);
    free(c->pmask);
    free(c->s);
    c->tmask = c->pmask = NULL;
    c->s = NULL;
    c->ns = 0;
    c->eof = 1;
    c->postings = 0;
}

static int pk_close(sqlite3_vtab_cursor *cur)
{
    pk_cur *c = (pk_cur *)cur;
    reset(c);
    sqlite3_finalize(c->walk_st[0]);
    sqlite3_finalize(c->walk_st[1]);
    sqlite3_finalize(c->chunk_after);
    sqlite3_finalize(c->chunk_before);
    sqlite3_finalize(c->chunk_at);
    sqlite3_finalize(c->block_at);
    free(c->blk);
    free(c);
    return SQLITE_OK;
}

/* An integer argument: 1 with *v set, 0 when it is not an integer (NULL, text, a
 * fraction: nothing of an integer column equals it). */
static int int_arg(sqlite3_value *a, int64_t *v)
{
    int t = sqlite3_value_numeric_type(a);
    if (t == SQLITE_INTEGER) {
        *v = sqlite3_value_int64(a);
        return 1;
    }
    if (t == SQLITE_FLOAT) {
        double d = sqlite3_value_double(a);
        if (d == floor(d) && d >= -9.2e18 && d <= 9.2e18) {
            *v = (int64_t)d;
            return 1;
        }
    }
    return 0;
}

/* A type or producer condition as a mask over 0..max (a value past it selects nothing). */
static int set_mask(sqlite3_value *a, int in, int32_t max, uint8_t **out)
{
    uint8_t *m = calloc((size_t)max + 1, 1);
    if (!m)
        return SQLITE_NOMEM;
    *out = m;
    int64_t v;
    if (!in) {
        if (int_arg(a, &v) && v >= 0 && v <= max)
            m[v] = 1;
        return SQLITE_OK;
    }
    sqlite3_value *x;
    int rc;
    for (rc = sqlite3_vtab_in_first(a, &x); rc == SQLITE_OK && x; rc = sqlite3_vtab_in_next(a, &x))
        if (int_arg(x, &v) && v >= 0 && v <= max)
            m[v] = 1;
    return rc == SQLITE_DONE || rc == SQLITE_OK ? SQLITE_OK : rc;
}

/* ---- the walk over blocks ---------------------------------------------------- */

static int decode_row(pk_cur *c, sqlite3_stmt *st)
{
    int64_t first = sqlite3_column_int64(st, 0);
    const unsigned char *b = sqlite3_column_blob(st, 1);
    int n = sqlite3_column_bytes(st, 1);
    if (!b || n <= 0 || tz_pack_decode(b, (size_t)n, first, c->blk) < 0) {
        c->have_blk = 0;
        return corrupt(c, "event block", first);
    }
    c->have_blk = 1;
    return SQLITE_OK;
}

static int selected(const pk_cur *c, int32_t type, int32_t prod)
{
    if (c->tmask && (type < 0 || type > c->vt->max_type || !c->tmask[type]))
        return 0;
    if (c->pmask && (prod < 0 || prod > c->vt->max_prod || !c->pmask[prod]))
        return 0;
    return 1;
}

/* Moves to the next selected event of the walk (the current one first when `here`). */
static int walk_next(pk_cur *c, int here)
{
    for (;;) {
        if (c->have_blk) {
            long i = here ? c->bi : c->bi + (c->desc ? -1 : 1);
            here = 0;
            const tz_pack_block *k = c->blk;
            for (; i >= 0 && i < (long)k->n; i += c->desc ? -1 : 1) {
                int64_t id = k->first_id + i;
                if (c->desc ? id < c->lo : id > c->hi) {
                    c->eof = 1;
                    return SQLITE_OK;
                }
                if ((c->desc ? id <= c->hi : id >= c->lo) && selected(c, k->type[i], k->producer[i])) {
                    c->bi = i;
                    c->id = id;
                    return SQLITE_OK;
                }
            }
        }
        if (!c->walk) { /* the cached block held the whole range */
            c->eof = 1;
            return SQLITE_OK;
        }
        int rc = sqlite3_step(c->walk);
        if (rc == SQLITE_DONE) {
            c->eof = 1;
            return SQLITE_OK;
        }
        if (rc != SQLITE_ROW)
            return rc;
        if ((rc = decode_row(c, c->walk)) != SQLITE_OK)
            return rc;
        c->bi = c->desc ? (long)c->blk->n - 1 : 0;
        here = 1;
    }
}

static int walk_start(pk_cur *c)
{
    c->eof = 0;
    const tz_pack_block *k = c->blk;
    if (c->have_blk && c->lo >= k->first_id && c->hi < k->first_id + (int64_t)k->n) {
        c->bi = (long)((c->desc ? c->hi : c->lo) - k->first_id);
        return walk_next(c, 1);
    }
    static const char *const sql[2] = {
        "SELECT id, data FROM main.event_pack WHERE id >= coalesce((SELECT id FROM main.event_pack"
        " WHERE id <= ?1 ORDER BY id DESC LIMIT 1), ?1) AND id <= ?2 ORDER BY id",
        "SELECT id, data FROM main.event_pack WHERE id <= ?2 ORDER BY id DESC"};
    sqlite3_stmt **st = &c->walk_st[c->desc];
    int rc;
    if (!*st && (rc = sqlite3_prepare_v2(c->vt->db, sql[c->desc], -1, st, NULL)) != SQLITE_OK)
        return rc;
    c->walk = *st;
    sqlite3_bind_int64(c->walk, 1, c->lo);
    sqlite3_bind_int64(c->walk, 2, c->hi);
    c->have_blk = 0;
    return walk_next(c, 1);
}

/* ---- the merge of posting lists ---------------------------------------------- */

/* Loads the chunk the statement found into s (positioned by the caller). 0: none. */
static int load_chunk(pk_cur *c, pk_stream *s, sqlite3_stmt *st, int *found)
{
    sqlite3_bind_int(st, 1, s->type);
    sqlite3_bind_int(st, 2, s->producer);
    int rc = sqlite3_step(st);
    *found = 0;
    if (rc == SQLITE_ROW) {
        int64_t first = sqlite3_column_int64(st, 0);
        const unsigned char *b = sqlite3_column_blob(st, 1);
        int n = sqlite3_column_bytes(st, 1);
        long k = tz_pack_ids(b ? b : (const unsigned char *)"", n > 0 ? (size_t)n : 0, first, s->ids, TZ_PACK_IDS);
        sqlite3_reset(st);
        if (k < 0)
            return corrupt(c, "posting list", first);
        s->n = k;
        *found = 1;
        return SQLITE_OK;
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Moves s to its next id in the cursor's direction within [lo, hi] (done if none). */
static int stream_advance(pk_cur *c, pk_stream *s)
{
    for (;;) {
        s->i += c->desc ? -1 : 1;
        if (s->i >= 0 && s->i < s->n) {
            int64_t id = s->ids[s->i];
            if (c->desc ? id < c->lo : id > c->hi) {
                s->done = 1;
                return SQLITE_OK;
            }
            if (c->desc ? id <= c->hi : id >= c->lo)
                return SQLITE_OK;
            continue;
        }
        /* the next chunk: after (before) this one's first id */
        sqlite3_stmt *st = c->desc ? c->chunk_before : c->chunk_after;
        sqlite3_bind_int64(st, 3, s->ids[0]);
        int found, rc = load_chunk(c, s, st, &found);
        if (rc != SQLITE_OK)
            return rc;
        if (!found) {
            s->done = 1;
            return SQLITE_OK;
        }
        s->i = c->desc ? s->n : -1;
    }
}

/* The stream's first id in range: from the chunk holding the range's near end. */
static int stream_start(pk_cur *c, pk_stream *s)
{
    int64_t at = c->desc ? c->hi : c->lo;
    sqlite3_bind_int64(c->chunk_at, 3, at);
    int found, rc = load_chunk(c, s, c->chunk_at, &found);
    if (rc != SQLITE_OK)
        return rc;
    if (!found) {
        if (c->desc) {
            s->done = 1;
            return SQLITE_OK;
        }
        /* every chunk starts after lo: the first one */
        sqlite3_bind_int64(c->chunk_after, 3, INT64_MIN);
        if ((rc = load_chunk(c, s, c->chunk_after, &found)) != SQLITE_OK)
            return rc;
        if (!found) {
            s->done = 1;
            return SQLITE_OK;
        }
    }
    /* the first id >= lo (asc) or the last <= hi (desc) of the chunk, then on */
    long i = 0;
    if (c->desc) {
        i = s->n - 1;
        while (i >= 0 && s->ids[i] > at)
            i--;
        s->i = i + 1;
    } else {
        while (i < s->n && s->ids[i] < at)
            i++;
        s->i = i - 1;
    }
    return stream_advance(c, s);
}

static int merge_pick(pk_cur *c)
{
    size_t best = c->ns;
    for (size_t k = 0; k < c->ns; k++) {
        const pk_stream *s = &c->s[k];
        if (s->done)
            continue;
        if (best == c->ns || (c->desc ? s->ids[s->i] > c->s[best].ids[c->s[best].i] : s->ids[s->i] < c->s[best].ids[c->s[best].i]))
            best = k;
    }
    if (best == c->ns) {
        c->eof = 1;
        return SQLITE_OK;
    }
    c->cur_s = best;
    c->id = c->s[best].ids[c->s[best].i];
    return SQLITE_OK;
}

static int postings_start(pk_cur *c, const size_t *pick, size_t npick)
{
    static const char *const sql[3] = {
        "SELECT first, ids FROM main.event_tp WHERE type=?1 AND producer=?2 AND first > ?3 ORDER BY first LIMIT 1",
        "SELECT first, ids FROM main.event_tp WHERE type=?1 AND producer=?2 AND first < ?3 ORDER BY first DESC LIMIT 1",
        "SELECT first, ids FROM main.event_tp WHERE type=?1 AND producer=?2 AND first <= ?3 ORDER BY first DESC LIMIT 1"};
    sqlite3_stmt **st[3] = {&c->chunk_after, &c->chunk_before, &c->chunk_at};
    for (int i = 0; i < 3; i++) {
        int rc = *st[i] ? SQLITE_OK : sqlite3_prepare_v2(c->vt->db, sql[i], -1, st[i], NULL);
        if (rc != SQLITE_OK)
            return rc;
    }
    c->s = calloc(npick ? npick : 1, sizeof *c->s);
    if (!c->s)
        return SQLITE_NOMEM;
    c->postings = 1;
    c->eof = 0;
    for (size_t k = 0; k < npick; k++) {
        pk_stream *s = &c->s[c->ns++];
        s->type = c->vt->keys[pick[k]].type;
        s->producer = c->vt->keys[pick[k]].producer;
        int rc = stream_start(c, s);
        if (rc != SQLITE_OK)
            return rc;
    }
    return merge_pick(c);
}

/* The block holding the current id (postings: read when a column asks). */
static int block_of_current(pk_cur *c)
{
    if (c->have_blk && c->id >= c->blk->first_id && c->id < c->blk->first_id + (int64_t)c->blk->n) {
        c->bi = (long)(c->id - c->blk->first_id);
        return SQLITE_OK;
    }
    int rc;
    if (!c->block_at &&
        (rc = sqlite3_prepare_v2(c->vt->db, "SELECT id, data FROM main.event_pack WHERE id <= ?1 ORDER BY id DESC LIMIT 1", -1,
                                 &c->block_at, NULL)) != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(c->block_at, 1, c->id);
    rc = sqlite3_step(c->block_at);
    if (rc == SQLITE_ROW)
        rc = decode_row(c, c->block_at);
    else if (rc == SQLITE_DONE)
        rc = corrupt(c, "posting list", c->id); /* an id no block holds */
    sqlite3_reset(c->block_at);
    if (rc != SQLITE_OK)
        return rc;
    if (c->id >= c->blk->first_id + (int64_t)c->blk->n) {
        c->have_blk = 0;
        return corrupt(c, "posting list", c->id);
    }
    c->bi = (long)(c->id - c->blk->first_id);
    return SQLITE_OK;
}

/* ---- the cursor -------------------------------------------------------------- */

static int pk_filter(sqlite3_vtab_cursor *cur, int num, const char *str, int argc, sqlite3_value **argv)
{
    (void)str;
    (void)argc;
    pk_cur *c = (pk_cur *)cur;
    reset(c);
    c->desc = (num & X_DESC) != 0;
    c->lo = 1;
    c->hi = INT64_MAX;
    int a = 0, rc;
    int64_t v;
    if (num & X_EQ) {
        if (!int_arg(argv[a++], &v))
            return SQLITE_OK; /* eof */
        c->lo = c->hi = v;
    }
    if (num & X_LO) {
        sqlite3_value *x = argv[a++];
        if (int_arg(x, &v))
            c->lo = (num & X_LO_GT) ? (v == INT64_MAX ? v : v + 1) : v;
        else if (sqlite3_value_numeric_type(x) == SQLITE_FLOAT)
            c->lo = (int64_t)fmax(ceil(sqlite3_value_double(x)), -9.2e18); /* SQLite rechecks (not omitted) */
    }
    if (num & X_HI) {
        sqlite3_value *x = argv[a++];
        if (int_arg(x, &v))
            c->hi = (num & X_HI_LT) ? (v == INT64_MIN ? v : v - 1) : v;
        else if (sqlite3_value_numeric_type(x) == SQLITE_FLOAT)
            c->hi = (int64_t)fmin(floor(sqlite3_value_double(x)), 9.2e18);
    }
    if (c->lo < 1)
        c->lo = 1;
    if ((num & X_TYPE) && (rc = set_mask(argv[a++], (num & X_TYPE_IN) != 0, c->vt->max_type, &c->tmask)) != SQLITE_OK)
        return rc;
    if ((num & X_PROD) && (rc = set_mask(argv[a++], (num & X_PROD_IN) != 0, c->vt->max_prod, &c->pmask)) != SQLITE_OK)
        return rc;
    if (c->lo > c->hi)
        return SQLITE_OK;
    if (c->tmask || c->pmask) {
        /* the pairs selected, and whether their lists are few enough to merge */
        size_t pick[MAX_STREAMS], npick = 0;
        int64_t chunks = 0;
        int merge = 1;
        for (size_t k = 0; k < c->vt->nkeys && merge; k++) {
            const pk_key *key = &c->vt->keys[k];
            if (!selected(c, key->type, key->producer))
                continue;
            if (npick == MAX_STREAMS)
                merge = 0;
            else
                pick[npick++] = k, chunks += key->chunks;
        }
        /* a list much shorter than the range: merge; else walk and test */
        int64_t span = c->hi - c->lo, nev = c->vt->nevents;
        if (span > nev)
            span = nev;
        if (merge && chunks * (TZ_PACK_IDS / 2) <= span + TZ_PACK_IDS)
            return postings_start(c, pick, npick);
        if (merge && npick == 0)
            return SQLITE_OK;
    }
    return walk_start(c);
}

static int pk_next(sqlite3_vtab_cursor *cur)
{
    pk_cur *c = (pk_cur *)cur;
    if (!c->postings)
        return walk_next(c, 0);
    int rc = stream_advance(c, &c->s[c->cur_s]);
    return rc != SQLITE_OK ? rc : merge_pick(c);
}

static int pk_eof(sqlite3_vtab_cursor *cur) { return ((pk_cur *)cur)->eof; }

static int pk_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    pk_cur *c = (pk_cur *)cur;
    if (col == C_ID) {
        sqlite3_result_int64(ctx, c->id);
        return SQLITE_OK;
    }
    if (c->postings) {
        int rc = block_of_current(c);
        if (rc != SQLITE_OK) {
            sqlite3_result_error(ctx, c->vt->base.zErrMsg ? c->vt->base.zErrMsg : "packed events: read failed", -1);
            return rc;
        }
    }
    const tz_pack_block *k = c->blk;
    long i = c->bi;
    unsigned has = k->has[i];
    switch (col) {
    case C_TS: sqlite3_result_int64(ctx, k->ts[i]); break;
    case C_TYPE: sqlite3_result_int(ctx, k->type[i]); break;
    case C_PRODUCER: sqlite3_result_int(ctx, k->producer[i]); break;
    case C_END_TS: if (has & TRAZA_HAS_END) sqlite3_result_int64(ctx, k->end_ts[i]); break;
    case C_END_PRODUCER: if (has & TRAZA_HAS_END_PRODUCER) sqlite3_result_int(ctx, k->end_producer[i]); break;
    case C_LEVEL: if (has & TRAZA_HAS_LEVEL) sqlite3_result_int(ctx, k->level[i]); break;
    case C_VALUE: if (has & TRAZA_HAS_VALUE) sqlite3_result_double(ctx, k->value[i]); break;
    case C_CPU: if (has & TRAZA_HAS_CPU) sqlite3_result_int(ctx, k->cpu[i]); break;
    default: break;
    }
    return SQLITE_OK; /* an absent field: NULL */
}

static int pk_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = ((pk_cur *)cur)->id;
    return SQLITE_OK;
}

static int pk_no_write(sqlite3_vtab *vt, int argc, sqlite3_value **argv, sqlite3_int64 *rowid)
{
    (void)argc;
    (void)argv;
    (void)rowid;
    return vt_error(vt, SQLITE_READONLY, "packed events are written by the importer only");
}

static const sqlite3_module pk_module = {
    .iVersion = 0,
    .xCreate = pk_connect,
    .xConnect = pk_connect,
    .xBestIndex = pk_best_index,
    .xDisconnect = pk_disconnect,
    .xDestroy = pk_disconnect,
    .xOpen = pk_open,
    .xClose = pk_close,
    .xFilter = pk_filter,
    .xNext = pk_next,
    .xEof = pk_eof,
    .xColumn = pk_column,
    .xRowid = pk_rowid,
    .xUpdate = pk_no_write,
};

int tz_sqlite_packed_attach(sqlite3 *db, int *packed, traza_err *err)
{
    *packed = 0;
    sqlite3_stmt *st;
    /* a store without the key (any written before the layout existed) has rows */
    if (tz_sql_prepare(db, "SELECT value FROM main.meta WHERE key='event_layout'", &st, err) < 0)
        return -1;
    int rc = sqlite3_step(st);
    const unsigned char *v = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
    int is_packed = v && strcmp((const char *)v, "packed") == 0, other = v && !is_packed;
    char layout[32];
    snprintf(layout, sizeof layout, "%s", v ? (const char *)v : "");
    sqlite3_finalize(st);
    if (other)
        return traza_err_set(err, TRAZA_E_FORMAT, "unknown event layout '%s' (expected 'packed')", layout);
    if (!is_packed)
        return 0;
    if (sqlite3_create_module_v2(db, "traza_packed", &pk_module, NULL, NULL) != SQLITE_OK)
        return tz_sql_fail(db, "reading packed events", err);
    if (tz_sql_exec(db, "CREATE VIRTUAL TABLE temp.event USING traza_packed", "reading packed events", err) < 0)
        return -1;
    *packed = 1;
    return 0;
}
