/* traza — read-only SQL over a stored trace.
 *
 * A session adds, to the connection of an open trace, the stable views that
 * doc/store.md ("SQL views") documents: events, params, producers, types, results,
 * result_events, result_producers and one "ev_<type>" view per event type with its
 * parameters as columns. They are the same on SQLite and PostgreSQL. Statements run
 * read-only: anything that would write is refused. */
#ifndef TRAZA_SQL_H
#define TRAZA_SQL_H

#include <stddef.h>
#include <stdint.h>
#include "traza/store.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef enum traza_sql_kind { TRAZA_SQL_NULL = 0, TRAZA_SQL_INT = 1, TRAZA_SQL_REAL = 2, TRAZA_SQL_TEXT = 3 } traza_sql_kind;

/* Where a statement's rows go. columns() is called once before the rows (also
 * when there are none); row() once per row with its values as text (NULL for SQL
 * NULL) and their kinds. A nonzero return stops the statement (TRAZA_E_CANCELLED). */
typedef struct traza_sql_sink {
    int (*columns)(void *ctx, size_t n, const char *const *names);
    int (*row)(void *ctx, size_t n, const char *const *values, const traza_sql_kind *kinds);
    void *ctx;
} traza_sql_sink;

typedef struct traza_sql traza_sql;

/* Creates the views on the trace's connection (the trace must stay open while the
 * session is used). */
traza_sql *traza_sql_open(traza_trace *t, traza_err *err);
void traza_sql_close(traza_sql *s);

/* Runs one statement (SELECT, WITH, VALUES or EXPLAIN; a trailing ';' is allowed).
 * A statement that would write fails with TRAZA_E_USAGE and a message saying the
 * session is read-only. `stop` (may be NULL) is consulted while the statement runs
 * on SQLite; `timeout_ms` (0 = none) bounds it on PostgreSQL; either way a
 * statement stopped for time fails with TRAZA_E_CANCELLED. */
int traza_sql_exec(traza_sql *s, const char *stmt, const traza_stop *stop, int64_t timeout_ms, const traza_sql_sink *sink,
                   traza_err *err);

/* Splits text into statements at the ';' outside quotes and comments. Returns the
 * length of the first statement (without its ';') starting at text + *start after
 * skipping blanks, with *start moved there; -1 when only blanks and comments are
 * left. *complete is set to 1 when that statement ends with ';'. */
long traza_sql_next_statement(const char *text, size_t *start, int *complete);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
