/* SQLite backend: ranks, events by rank and the overview sample of a trace.
 *
 * Events are stored with id = rank + 1 in time order, so "how many events start
 * before t" is a binary search over the rowid. Each look-up is a B-tree descent
 * (~2 us), but only inside a transaction: in autocommit mode every statement also
 * takes and drops the file lock and checks for a hot journal (~8 us on a 10 M-event
 * store), so a search runs inside one read transaction.
 *
 * The overview is the (ts, type, producer) of every TZ_OVERVIEW_STEP-th event,
 * written into the store's meta table at import (key 'overview', layout in
 * doc/store.md) and rebuilt by look-ups for stores written before it existed. It
 * narrows every binary search to one step (8 look-ups instead of ~24 on 10 M
 * events) and gives overviews (the server's timeline summaries) their samples
 * without touching the events. */
#include "store/sqlite_internal.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

#define OV_VERSION 1
#define OV_HEAD 16 /* u32 version, u32 step, u64 entries */
#define OV_ENTRY 16 /* i64 ts, i32 type, i32 producer */

/* A read transaction when none is open: 1 if this call opened it. */
static int begin(sqlite3 *db)
{
    return sqlite3_get_autocommit(db) && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
}

static void end(sqlite3 *db, int begun)
{
    if (begun)
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}

/* Row `id` into the outputs (any may be NULL): 1 found, 0 no such row, -1 error. */
static int row_at(sqlite3 *db, sqlite3_stmt *st, int64_t id, int64_t *ts, int32_t *type, int32_t *prod, traza_err *err)
{
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        if (ts) *ts = sqlite3_column_int64(st, 0);
        if (type) *type = sqlite3_column_int(st, 1);
        if (prod) *prod = sqlite3_column_int(st, 2);
    }
    sqlite3_reset(st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return tz_sql_fail(db, "reading an event by rank", err);
}

static void ov_free(tz_overview *ov)
{
    free(ov->ts);
    free(ov->type);
    free(ov->prod);
    memset(ov, 0, sizeof *ov);
}

void tz_sqlite_overview_free(tz_tstate *t) { ov_free(&t->ov); }

static int ov_alloc(tz_overview *ov, size_t n, traza_err *err)
{
    ov->ts = malloc((n ? n : 1) * sizeof *ov->ts);
    ov->type = malloc((n ? n : 1) * sizeof *ov->type);
    ov->prod = malloc((n ? n : 1) * sizeof *ov->prod);
    if (!ov->ts || !ov->type || !ov->prod) {
        ov_free(ov);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the overview of %zu entries", n);
    }
    ov->n = n;
    return 0;
}

/* The overview of the `nevents` events of db by look-ups (inside a transaction). */
static int ov_build(sqlite3 *db, int64_t nevents, tz_overview *ov, traza_err *err)
{
    size_t n = nevents > 0 ? (size_t)((nevents - 1) / TZ_OVERVIEW_STEP + 1) : 0;
    if (ov_alloc(ov, n, err) < 0)
        return -1;
    ov->step = TZ_OVERVIEW_STEP;
    sqlite3_stmt *st;
    if (tz_sql_prepare(db, "SELECT ts, type, producer FROM event WHERE id=?", &st, err) < 0) {
        ov_free(ov);
        return -1;
    }
    int begun = begin(db);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int k = row_at(db, st, 1 + (int64_t)i * TZ_OVERVIEW_STEP, &ov->ts[i], &ov->type[i], &ov->prod[i], err);
        if (k == 0)
            rc = traza_err_set(err, TRAZA_E_FORMAT, "the trace store lacks event %lld of its %lld",
                               (long long)(1 + (int64_t)i * TZ_OVERVIEW_STEP), (long long)nevents);
        else if (k < 0)
            rc = -1;
    }
    end(db, begun);
    sqlite3_finalize(st);
    if (rc < 0)
        ov_free(ov);
    return rc;
}

int tz_sqlite_overview_write(sqlite3 *db, int64_t nevents, traza_err *err)
{
    tz_overview ov;
    memset(&ov, 0, sizeof ov);
    if (ov_build(db, nevents, &ov, err) < 0)
        return -1;
    size_t bytes = OV_HEAD + ov.n * OV_ENTRY;
    unsigned char *blob = malloc(bytes);
    if (!blob) {
        ov_free(&ov);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the overview");
    }
    tz_put_le32(blob, OV_VERSION);
    tz_put_le32(blob + 4, (uint32_t)ov.step);
    tz_put_le64(blob + 8, ov.n);
    for (size_t i = 0; i < ov.n; i++) {
        unsigned char *p = blob + OV_HEAD + i * OV_ENTRY;
        tz_put_le64(p, (uint64_t)ov.ts[i]);
        tz_put_le32(p + 8, (uint32_t)ov.type[i]);
        tz_put_le32(p + 12, (uint32_t)ov.prod[i]);
    }
    ov_free(&ov);
    sqlite3_stmt *st;
    int rc = tz_sql_prepare(db, "INSERT OR REPLACE INTO meta VALUES('overview', ?)", &st, err);
    if (rc == 0) {
        sqlite3_bind_blob(st, 1, blob, (int)bytes, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = tz_sql_fail(db, "writing the overview", err);
        sqlite3_finalize(st);
    }
    free(blob);
    return rc;
}

/* The persisted overview: 1 loaded, 0 absent or not for this event count, -1 error. */
static int ov_read(tz_tstate *t, traza_err *err)
{
    sqlite3_stmt *st;
    if (tz_sql_prepare(t->db, "SELECT value FROM meta WHERE key='overview'", &st, err) < 0)
        return -1;
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *p = sqlite3_column_blob(st, 0);
        size_t bytes = (size_t)sqlite3_column_bytes(st, 0);
        size_t want = t->nevents > 0 ? (size_t)((t->nevents - 1) / TZ_OVERVIEW_STEP + 1) : 0;
        /* a layout of another version or step is rebuilt rather than trusted */
        if (p && bytes >= OV_HEAD && tz_get_le32(p) == OV_VERSION && tz_get_le32(p + 4) == TZ_OVERVIEW_STEP && tz_get_le64(p + 8) == want &&
            bytes == OV_HEAD + want * OV_ENTRY) {
            rc = ov_alloc(&t->ov, want, err) < 0 ? -1 : 1;
            for (size_t i = 0; rc == 1 && i < want; i++) {
                const unsigned char *e = p + OV_HEAD + i * OV_ENTRY;
                t->ov.ts[i] = (int64_t)tz_get_le64(e);
                t->ov.type[i] = (int32_t)tz_get_le32(e + 8);
                t->ov.prod[i] = (int32_t)tz_get_le32(e + 12);
            }
            t->ov.step = TZ_OVERVIEW_STEP;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* t->ov_state: 0 not looked for, 1 loaded, 2 not in the store (not built). */
static int ov_try_read(tz_tstate *t, traza_err *err)
{
    if (t->ov_state == 0) {
        int rc = ov_read(t, err);
        if (rc < 0)
            return -1; /* looked for again next time */
        t->ov_state = rc > 0 ? 1 : 2;
    }
    return 0;
}

/* The overview, read from the store or else built (once per open trace). */
static int ov_ready(tz_tstate *t, traza_err *err)
{
    if (ov_try_read(t, err) < 0)
        return -1;
    if (t->ov_state == 2) {
        if (ov_build(t->db, t->nevents, &t->ov, err) < 0)
            return -1;
        t->ov_state = 1;
    }
    return 0;
}

int tz_sqlite_t_overview(tz_tstate *t, int64_t *step, size_t *n, const int64_t **ts, const int32_t **type,
                         const int32_t **prod, traza_err *err)
{
    if (ov_ready(t, err) < 0)
        return -1;
    *step = t->ov.step;
    *n = t->ov.n;
    *ts = t->ov.ts;
    *type = t->ov.type;
    *prod = t->ov.prod;
    return 0;
}

/* The first id (1-based) whose ts >= x, n + 1 if none; inside a transaction. */
static int64_t first_ge(tz_tstate *t, int64_t x, traza_err *err)
{
    int64_t lo = 1, hi = t->nevents + 1;
    if (t->ov_state > 0 && t->ov.n > 0) {
        /* j = the first overview entry with ts >= x: the answer lies in
         * (id of entry j-1, id of entry j] */
        size_t a = 0, b = t->ov.n;
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (t->ov.ts[mid] >= x)
                b = mid;
            else
                a = mid + 1;
        }
        if (a > 0)
            lo = 2 + (int64_t)(a - 1) * t->ov.step;
        if (a < t->ov.n)
            hi = 1 + (int64_t)a * t->ov.step;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2, ts = INT64_MAX;
        if (row_at(t->db, t->row_at, mid, &ts, NULL, NULL, err) < 0)
            return -1;
        if (ts >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int tz_sqlite_first_ids(tz_tstate *t, const int64_t *x, size_t n, int64_t *id, traza_err *err)
{
    /* a stored overview makes each search one step long; an older store without one
     * searches the whole range (building it costs n / step look-ups: only worth it
     * for overviews, see tz_sqlite_t_overview) */
    if (t->nevents > 4 * TZ_OVERVIEW_STEP && ov_try_read(t, err) < 0)
        return -1;
    int begun = begin(t->db);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if ((id[i] = first_ge(t, x[i], err)) < 0)
            rc = -1;
    end(t->db, begun);
    return rc;
}

int tz_sqlite_t_ranks(tz_tstate *t, const int64_t *ts, size_t n, int64_t *rank, traza_err *err)
{
    if (tz_sqlite_first_ids(t, ts, n, rank, err) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        rank[i] -= 1;
    return 0;
}

int tz_sqlite_t_rows(tz_tstate *t, const int64_t *rank, size_t n, int64_t *ts, int32_t *type, int32_t *prod,
                     traza_err *err)
{
    int begun = begin(t->db);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int k = row_at(t->db, t->row_at, rank[i] + 1, &ts[i], &type[i], &prod[i], err);
        if (k == 0)
            rc = traza_err_set(err, TRAZA_E_USAGE, "no event of rank %lld (the trace has %lld)", (long long)rank[i],
                               (long long)t->nevents);
        else if (k < 0)
            rc = -1;
    }
    end(t->db, begun);
    return rc;
}
