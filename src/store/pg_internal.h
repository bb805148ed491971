/* PostgreSQL backend: one database holds a workspace. The catalogue lives in the
 * schema `traza`; each trace is a schema `t_<hex16>` (named in traza.trace.file) with
 * the same tables and indexes as a SQLite trace store. Layout: doc/store.md. */
#ifndef TZ_PG_INTERNAL_H
#define TZ_PG_INTERNAL_H

#include "store/pg_api.h"
#include "store/backend.h"
#include "util/util.h"

typedef struct tz_pg {
    tz_backend base;
    char *uri;
    PGconn *cat;   /* the catalogue connection */
} tz_pg;

struct tz_tstate {
    tz_pg *ws;
    PGconn *conn;      /* one connection per open trace, search_path = its schema */
    int64_t id;
    int64_t nevents;
    int64_t max_duration;
    int32_t ntypes;    /* from the model, for producer-only index lookups */
    int ncursors;      /* open queries; they live in one transaction */
    int in_tx;
    unsigned next_cursor;
};

/* A new connection with notices silenced; NULL with err set on failure. */
PGconn *tz_pg_connect(const char *uri, traza_err *err);
/* Runs SQL with no rows expected (several statements allowed). */
int tz_pg_exec(PGconn *c, const char *sql, const char *what, traza_err *err);
/* Runs a query with text parameters; NULL with err set on failure. PQclear the result. */
PGresult *tz_pg_query(PGconn *c, const char *sql, int n, const char *const *vals, const char *what, traza_err *err);
/* Fills err from a failed result or the connection (unique violations -> TRAZA_E_EXISTS). */
int tz_pg_fail(PGconn *c, const PGresult *r, const char *what, traza_err *err);
/* Sends a COPY ... FROM STDIN with the given text-format rows. */
int tz_pg_copy(PGconn *c, const char *copy_sql, const char *data, size_t len, const char *what, traza_err *err);
/* Appends s to b escaped for COPY text format. */
void tz_pg_copy_str(tz_buf *b, const char *s);
/* Appends a double for COPY text format (NaN and infinities spelled as PostgreSQL reads them). */
void tz_pg_copy_double(tz_buf *b, double d);
/* Ends a transaction: COMMIT, or ROLLBACK when it already failed. */
int tz_pg_end_tx(PGconn *c, traza_err *err);
int64_t tz_pg_i64(const PGresult *r, int row, int col);
/* Creates the trace tables in the current schema (indexes come after the load). */
int tz_pg_create_tables(PGconn *c, traza_err *err);

/* Strings that are not valid UTF-8 (pg_text.c): encoded losslessly for the server. */
int tz_pg_text_needs_enc(const char *s, size_t n);
void tz_pg_text_enc(tz_buf *b, const char *s, size_t n);
void tz_pg_text_dec(tz_buf *b, const char *s, size_t n);
/* A decoded copy of a text column (NULL if SQL NULL or out of memory). */
char *tz_pg_text_get(const PGresult *r, int row, int col);

int tz_pg_w_begin(tz_backend *b, const char *name, tz_wstate **out, traza_err *err);
int tz_pg_w_producer(tz_wstate *w, const traza_producer *p, traza_err *err);
int tz_pg_w_event_type(tz_wstate *w, const traza_event_type *t, traza_err *err);
int tz_pg_w_param_def(tz_wstate *w, const traza_param_def *d, traza_err *err);
int tz_pg_w_param_const(tz_wstate *w, int32_t def, const traza_value *v, traza_err *err);
int tz_pg_w_event(tz_wstate *w, const traza_event *ev, int64_t seq, traza_err *err);
int tz_pg_w_commit(tz_wstate *w, int sorted, int replace, const traza_trace_info *info, int64_t *id, traza_err *err);
void tz_pg_w_abort(tz_wstate *w);

int tz_pg_t_open(tz_backend *b, int64_t id, int write, tz_tstate **out, traza_err *err);
void tz_pg_t_close(tz_tstate *t);
int tz_pg_t_load_model(tz_tstate *t, tz_model *m, traza_err *err);
int64_t tz_pg_t_max_duration(tz_tstate *t);
int tz_pg_q_open(tz_tstate *t, const tz_bfilter *f, tz_qstate **out, traza_err *err);
int tz_pg_q_next(tz_qstate *q, traza_event *ev, traza_err *err);
void tz_pg_q_close(tz_qstate *q);
int tz_pg_s_open(tz_tstate *t, const tz_bfilter *f, tz_qstate **out, traza_err *err);
int64_t tz_pg_s_next(tz_qstate *q, size_t max, int64_t *id, int64_t *ts, int64_t *end, int32_t *type, int32_t *producer,
                     traza_err *err);
int64_t tz_pg_q_count(tz_tstate *t, const tz_bfilter *f, traza_err *err);

/* SQL sessions (pg_sql.c). */
int tz_pg_sql_setup(tz_tstate *t, const char *ddl, traza_err *err);
int tz_pg_sql_run(tz_tstate *t, const char *stmt, const traza_stop *stop, int64_t timeout_ms, const traza_sql_sink *sink,
                  traza_err *err);

int64_t tz_pg_r_save(tz_tstate *t, const traza_result_meta *m, traza_result_kind kind, int64_t size,
                     const char *target, const void *payload, size_t n, traza_err *err);
int tz_pg_r_list(tz_tstate *t, traza_result_info **out, size_t *n, traza_err *err);
int tz_pg_r_delete(tz_tstate *t, int64_t id, traza_err *err);
int tz_pg_r_events(tz_tstate *t, int64_t id, int64_t **ids, size_t *n, traza_err *err);
int tz_pg_r_sets_of_event(tz_tstate *t, int64_t event, int64_t **ids, size_t *n, traza_err *err);
int tz_pg_r_producers(tz_tstate *t, int64_t id, int32_t **ids, size_t *n, traza_err *err);
int tz_pg_r_group(tz_tstate *t, int64_t id, traza_group_node **nodes, size_t *n, traza_err *err);
int tz_pg_r_annotations(tz_tstate *t, int64_t id, traza_annotation **a, size_t *n, traza_err *err);

#endif
