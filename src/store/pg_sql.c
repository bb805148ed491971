/* PostgreSQL backend: SQL sessions. The views are temporary objects of the trace's
 * connection (its schema is on the search_path, pg_temp before it). Each user
 * statement runs alone (the extended protocol takes one statement) inside a
 * read-only transaction whose snapshot is already taken, so that neither a write
 * nor "SET TRANSACTION READ WRITE" can succeed, and which is rolled back after it;
 * statement_timeout bounds its time. */
#include "store/pg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tz_pg_sql_setup(tz_tstate *t, const char *ddl, traza_err *err)
{
    if (t->ncursors)
        return traza_err_set(err, TRAZA_E_USAGE, "a query of this trace is still open");
    return tz_pg_exec(t->conn, ddl, "creating the SQL views", err);
}

static traza_sql_kind kind_of(Oid type)
{
    switch (type) {
    case 20: case 21: case 23: case 26: return TRAZA_SQL_INT;      /* int8, int2, int4, oid */
    case 700: case 701: case 1700: return TRAZA_SQL_REAL;          /* float4, float8, numeric */
    default: return TRAZA_SQL_TEXT;
    }
}

static int deliver(PGresult *res, const traza_sql_sink *sink, traza_err *err)
{
    tz_sql_row r;
    int rows = PQntuples(res);
    if (tz_sql_row_init(&r, (size_t)PQnfields(res), err) < 0)
        return -1;
    for (size_t i = 0; i < r.n; i++)
        r.v[i] = PQfname(res, (int)i);
    int rc = tz_sql_row_emit(&r, sink, 1, err);
    for (int row = 0; rc == 0 && row < rows; row++) {
        for (size_t i = 0; i < r.n; i++) {
            int null = PQgetisnull(res, row, (int)i);
            r.v[i] = null ? NULL : PQgetvalue(res, row, (int)i);
            r.k[i] = null ? TRAZA_SQL_NULL : kind_of(PQftype(res, (int)i));
        }
        rc = tz_sql_row_emit(&r, sink, 0, err);
    }
    tz_sql_row_free(&r);
    return rc;
}

int tz_pg_sql_run(tz_tstate *t, const char *stmt, const traza_stop *stop, int64_t timeout_ms, const traza_sql_sink *sink,
                  traza_err *err)
{
    (void)stop; /* the server's statement_timeout bounds the time */
    if (t->ncursors || t->in_tx)
        return traza_err_set(err, TRAZA_E_USAGE, "a query of this trace is still open");
    char begin[160];
    snprintf(begin, sizeof begin, "BEGIN READ ONLY; SET LOCAL statement_timeout = %lld; SELECT 1;",
             (long long)(timeout_ms > 0 ? timeout_ms : 0));
    if (tz_pg_exec(t->conn, begin, "starting a read-only transaction", err) < 0) {
        PQclear(PQexec(t->conn, "ROLLBACK"));
        return -1;
    }
    PGresult *r = PQexecParams(t->conn, stmt, 0, NULL, NULL, NULL, NULL, 0);
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    int rc;
    if (s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK) {
        rc = deliver(r, sink, err);
    } else {
        const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
        const char *msg = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
        if (!msg)
            msg = PQerrorMessage(t->conn);
        if (state && strcmp(state, "57014") == 0)
            rc = traza_err_set(err, TRAZA_E_CANCELLED, "the SQL statement ran out of its time budget");
        else if (state && strcmp(state, "25006") == 0)
            rc = traza_err_set(err, TRAZA_E_USAGE, "the SQL session is read-only: the statement would change the store (%s)", msg);
        else
            rc = traza_err_set(err, TRAZA_E_USAGE, "SQL: %s", msg);
    }
    PQclear(r);
    PQclear(PQexec(t->conn, "ROLLBACK"));
    return rc;
}
