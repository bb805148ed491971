/* SQLite backend: a workspace directory with catalog.db and traces/<file>.db.
 * Layout and the reasons for it: doc/store.md. */
#ifndef TZ_SQLITE_INTERNAL_H
#define TZ_SQLITE_INTERNAL_H

#include <sqlite3.h>
#include "store/backend.h"
#include "util/util.h"

typedef struct tz_sqlite {
    tz_backend base;
    char *dir;
    sqlite3 *cat;  /* catalog.db */
    char *ro;      /* NULL, or why the workspace was opened read-only ("a read-only file system") */
} tz_sqlite;

/* 0 when the workspace can be written; otherwise -1 with an error naming the folder,
 * why it is read-only and what needed writing (`what`: "import a trace"). */
int tz_sqlite_writable(const tz_sqlite *s, const char *what, traza_err *err);

/* Every TZ_OVERVIEW_STEP-th event of a trace (sqlite_overview.c). */
#define TZ_OVERVIEW_STEP 256
typedef struct tz_overview {
    int64_t step;
    size_t n;
    int64_t *ts;
    int32_t *type, *prod;
} tz_overview;

struct tz_tstate {
    tz_sqlite *ws;
    sqlite3 *db;
    int64_t id;
    int64_t nevents;
    int64_t max_duration;
    int packed;            /* event_layout 'packed' (sqlite_packed.c) */
    sqlite3_stmt *row_at;  /* SELECT ts, type, producer FROM event WHERE id=? */
    tz_overview ov;
    int ov_state;          /* see sqlite_overview.c */
};

/* Runs SQL without results; on failure fills err with `what` and SQLite's message. */
int tz_sql_exec(sqlite3 *db, const char *sql, const char *what, traza_err *err);
int tz_sql_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, traza_err *err);
int tz_sql_fail(sqlite3 *db, const char *what, traza_err *err);
/* Takes trace `id` out of the catalogue (its row, sources and parameters), inside the
 * caller's transaction; *file (NULL-safe): its file name (malloc'd), to remove after the
 * commit. 0, -1 (TRAZA_E_NOTFOUND when there is no such trace). */
int tz_sqlite_unlist(sqlite3 *cat, int64_t id, char **file, traza_err *err);
/* The trace store's path for a catalogue file name. */
char *tz_sqlite_trace_path(const tz_sqlite *s, const char *file);
/* Creates the trace store schema (tables only; indexes come after the load). */
int tz_sqlite_create_schema(sqlite3 *db, const char *prefix, traza_err *err);
int tz_sqlite_create_indexes(sqlite3 *db, traza_err *err);

/* Writer, reader and results entry points (sqlite_writer.c, sqlite_query.c, sqlite_results.c). */
int tz_sqlite_w_begin(tz_backend *b, const char *name, tz_wstate **out, traza_err *err);
int tz_sqlite_w_producer(tz_wstate *w, const traza_producer *p, traza_err *err);
int tz_sqlite_w_event_type(tz_wstate *w, const traza_event_type *t, traza_err *err);
int tz_sqlite_w_param_def(tz_wstate *w, const traza_param_def *d, traza_err *err);
int tz_sqlite_w_param_const(tz_wstate *w, int32_t def, const traza_value *v, traza_err *err);
int tz_sqlite_w_event(tz_wstate *w, const traza_event *ev, int64_t seq, traza_err *err);
int tz_sqlite_w_commit(tz_wstate *w, int sorted, int replace, const traza_trace_info *info, int64_t *id, traza_err *err);
void tz_sqlite_w_abort(tz_wstate *w);
void tz_sqlite_w_layout(tz_wstate *w, int packed, int strong);
int tz_sqlite_t_storage(tz_tstate *t, traza_trace_storage *out, traza_err *err);
/* On a packed store (meta event_layout = 'packed'), creates the connection's
 * temp.event virtual table over event_pack and event_tp (sqlite_packed.c), which
 * every statement then reads as `event`; *packed says whether it did. A store
 * without the key has rows. */
int tz_sqlite_packed_attach(sqlite3 *db, int *packed, traza_err *err);

int tz_sqlite_t_open(tz_backend *b, int64_t id, int write, tz_tstate **out, traza_err *err);
void tz_sqlite_t_close(tz_tstate *t);
int tz_sqlite_t_load_model(tz_tstate *t, tz_model *m, traza_err *err);
int64_t tz_sqlite_t_max_duration(tz_tstate *t);
int tz_sqlite_q_open(tz_tstate *t, const tz_bfilter *f, tz_qstate **out, traza_err *err);
int tz_sqlite_q_next(tz_qstate *q, traza_event *ev, traza_err *err);
void tz_sqlite_q_close(tz_qstate *q);
int tz_sqlite_s_open(tz_tstate *t, const tz_bfilter *f, tz_qstate **out, traza_err *err);
int64_t tz_sqlite_s_next(tz_qstate *q, size_t max, int64_t *id, int64_t *ts, int64_t *end, int32_t *type, int32_t *producer,
                         traza_err *err);
/* Ranks and the overview (sqlite_overview.c). tz_sqlite_first_ids: for each x, the
 * first id whose ts >= x (n + 1 if none). */
int tz_sqlite_first_ids(tz_tstate *t, const int64_t *x, size_t n, int64_t *id, traza_err *err);
int tz_sqlite_t_ranks(tz_tstate *t, const int64_t *ts, size_t n, int64_t *rank, traza_err *err);
int tz_sqlite_t_rows(tz_tstate *t, const int64_t *rank, size_t n, int64_t *ts, int32_t *type, int32_t *prod,
                     traza_err *err);
int tz_sqlite_t_overview(tz_tstate *t, int64_t *step, size_t *n, const int64_t **ts, const int32_t **type,
                         const int32_t **prod, traza_err *err);
void tz_sqlite_overview_free(tz_tstate *t);
/* Computes the overview of a finished event table and stores it in meta. */
int tz_sqlite_overview_write(sqlite3 *db, int64_t nevents, traza_err *err);
int64_t tz_sqlite_q_count(tz_tstate *t, const tz_bfilter *f, traza_err *err);

/* SQL sessions (sqlite_sql.c). */
int tz_sqlite_sql_setup(tz_tstate *t, const char *ddl, traza_err *err);
int tz_sqlite_sql_run(tz_tstate *t, const char *stmt, const traza_stop *stop, int64_t timeout_ms, const traza_sql_sink *sink,
                      traza_err *err);

int64_t tz_sqlite_r_save(tz_tstate *t, const traza_result_meta *m, traza_result_kind kind, int64_t size,
                         const char *target, const void *payload, size_t n, traza_err *err);
int tz_sqlite_r_list(tz_tstate *t, traza_result_info **out, size_t *n, traza_err *err);
int tz_sqlite_r_delete(tz_tstate *t, int64_t id, traza_err *err);
int tz_sqlite_r_events(tz_tstate *t, int64_t id, int64_t **ids, size_t *n, traza_err *err);
int tz_sqlite_r_sets_of_event(tz_tstate *t, int64_t event, int64_t **ids, size_t *n, traza_err *err);
int tz_sqlite_r_producers(tz_tstate *t, int64_t id, int32_t **ids, size_t *n, traza_err *err);
int tz_sqlite_r_group(tz_tstate *t, int64_t id, traza_group_node **nodes, size_t *n, traza_err *err);
int tz_sqlite_r_annotations(tz_tstate *t, int64_t id, traza_annotation **a, size_t *n, traza_err *err);

#endif
