/* SQLite backend: SQL sessions. The views are temporary objects of the trace's
 * connection; user statements run under an authorizer that allows reading only
 * (SELECT, reading columns, functions, recursive CTEs) and a progress handler that
 * consults the caller's stop. */
#include "store/sqlite_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct auth_state {
    int denied;        /* an action the authorizer refused */
} auth_state;

static int read_only_auth(void *ctx, int action, const char *a, const char *b, const char *db, const char *trigger)
{
    (void)a, (void)b, (void)db, (void)trigger;
    if (action == SQLITE_SELECT || action == SQLITE_READ || action == SQLITE_FUNCTION || action == SQLITE_RECURSIVE)
        return SQLITE_OK;
    ((auth_state *)ctx)->denied = action;
    return SQLITE_DENY;
}

static int progress_stop(void *ctx)
{
    const traza_stop *st = ctx;
    return st->fn(st->ctx, TRAZA_STAGE_READ) != 0;
}

int tz_sqlite_sql_setup(tz_tstate *t, const char *ddl, traza_err *err)
{
    return tz_sql_exec(t->db, ddl, "creating the SQL views", err);
}

static traza_sql_kind kind_of(int type)
{
    switch (type) {
    case SQLITE_INTEGER: return TRAZA_SQL_INT;
    case SQLITE_FLOAT: return TRAZA_SQL_REAL;
    case SQLITE_NULL: return TRAZA_SQL_NULL;
    default: return TRAZA_SQL_TEXT;
    }
}

/* A double as the shortest text that reads back as the same value, as PostgreSQL
 * writes it (SQLite's own text keeps 15 digits only). */
static void shortest_double(double d, char *buf, size_t size)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            return;
    }
}

static int run(tz_tstate *t, sqlite3_stmt *st, const traza_sql_sink *sink, traza_err *err)
{
    enum { NUMLEN = 32 };
    tz_sql_row r;
    if (tz_sql_row_init(&r, (size_t)sqlite3_column_count(st), err) < 0)
        return -1;
    char *nums = malloc(r.n * NUMLEN + 1);
    if (!nums) {
        tz_sql_row_free(&r);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < r.n; i++)
        r.v[i] = sqlite3_column_name(st, (int)i);
    int rc = tz_sql_row_emit(&r, sink, 1, err), step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        for (size_t i = 0; i < r.n; i++) {
            r.k[i] = kind_of(sqlite3_column_type(st, (int)i));
            if (r.k[i] == TRAZA_SQL_REAL) {
                shortest_double(sqlite3_column_double(st, (int)i), nums + i * NUMLEN, NUMLEN);
                r.v[i] = nums + i * NUMLEN;
            } else {
                r.v[i] = (const char *)sqlite3_column_text(st, (int)i);
            }
        }
        rc = tz_sql_row_emit(&r, sink, 0, err);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = sqlite3_errcode(t->db) == SQLITE_INTERRUPT
                 ? traza_err_set(err, TRAZA_E_CANCELLED, "the SQL statement ran out of its time budget")
                 : traza_err_set(err, TRAZA_E_USAGE, "SQL: %s", sqlite3_errmsg(t->db));
    tz_sql_row_free(&r);
    free(nums);
    return rc;
}

int tz_sqlite_sql_run(tz_tstate *t, const char *stmt, const traza_stop *stop, int64_t timeout_ms, const traza_sql_sink *sink,
                      traza_err *err)
{
    (void)timeout_ms; /* the stop decides */
    auth_state auth = {0};
    sqlite3_stmt *st = NULL;
    sqlite3_set_authorizer(t->db, read_only_auth, &auth);
    int prc = sqlite3_prepare_v2(t->db, stmt, -1, &st, NULL);
    int rc = 0;
    if (prc != SQLITE_OK) {
        if (auth.denied)
            rc = traza_err_set(err, TRAZA_E_USAGE, "the SQL session is read-only: the statement would change the store (%s)",
                               sqlite3_errmsg(t->db));
        else
            rc = traza_err_set(err, TRAZA_E_USAGE, "SQL: %s", sqlite3_errmsg(t->db));
    } else if (st && !sqlite3_stmt_readonly(st)) {
        rc = traza_err_set(err, TRAZA_E_USAGE, "the SQL session is read-only: the statement would change the store");
    } else if (st) {
        if (stop && stop->fn)
            sqlite3_progress_handler(t->db, 1000, progress_stop, (void *)stop);
        rc = run(t, st, sink, err);
        sqlite3_progress_handler(t->db, 0, NULL, NULL);
    }
    sqlite3_finalize(st);
    sqlite3_set_authorizer(t->db, NULL, NULL);
    return rc;
}
