/* The store backend interface: what a storage engine (SQLite, PostgreSQL) implements.
 * The generic layer (workspace.c, writer.c, trace.c, query.c, results.c) keeps ids,
 * name maps, filters and checks; a backend only moves rows. */
#ifndef TZ_STORE_BACKEND_H
#define TZ_STORE_BACKEND_H

#include "traza/store.h"
#include "traza/result.h"
#include "traza/sql.h"

typedef struct tz_backend tz_backend;   /* an open workspace of one backend */
typedef struct tz_wstate tz_wstate;     /* a trace being written */
typedef struct tz_tstate tz_tstate;     /* an open trace */
typedef struct tz_qstate tz_qstate;     /* a running query */

/* A filter as backends see it: categories already turned into types, producer
 * subtrees expanded, regexes removed (applied above the backend). */
typedef struct tz_bfilter {
    const traza_filter *f;
    const int32_t *types;      /* NULL = all */
    size_t ntypes;
    int empty;                 /* the filter can match nothing (e.g. no type left) */
    /* param conditions resolved to definition ids and typed values */
    struct tz_bcond {
        const int32_t *defs;
        size_t ndefs;
        traza_cmp op;
        int numeric;
        double num;
        const char *str;
        /* types whose definition of the name has one value for all their events
         * (tz_model.consts) and that value matches: their events match without a
         * parameter row; defs above holds the other definitions only */
        const int32_t *ctypes;
        size_t nctypes;
    } *conds;
    size_t nconds;
    int64_t offset, limit;     /* what the backend applies (0 when done above it) */
} tz_bfilter;

/* The in-memory model of a trace, filled by t_load_model. Strings are owned by the
 * `strings` arena-like list and freed with the model. */
typedef struct tz_model {
    traza_producer *producers;
    size_t nproducers;
    traza_event_type *types;
    size_t ntypes;
    traza_param_def *defs;
    size_t ndefs;
    /* Definitions with one value for every event of their type (param_const):
     * consts[d] is that value where is_const[d]; the constant definitions of type k
     * are tconst[tconst_start[k] .. tconst_start[k + 1]). NULL when there are none. */
    traza_value *consts;
    uint8_t *is_const;
    size_t *tconst_start;
    int32_t *tconst;
    char **strings;
    size_t nstrings, capstrings;
} tz_model;

/* Keeps a string alive as long as the model; returns the copy or NULL. */
const char *tz_model_str(tz_model *m, const char *s);
/* Records the constant value of definition `def` while a backend loads the model
 * (after the definitions; a string is copied). 0, or -1 with err set. */
int tz_model_set_const(tz_model *m, int32_t def, const traza_value *v, traza_err *err);
void tz_model_free(tz_model *m);

typedef struct tz_backend_ops {
    const char *name;
    void (*close)(tz_backend *b);

    int (*list)(tz_backend *b, traza_trace_info **out, size_t *n, traza_err *err);
    int (*remove)(tz_backend *b, int64_t id, traza_err *err);
    int (*rename)(tz_backend *b, int64_t id, const char *name, traza_err *err);
    /* 1 if the name is taken, 0 if free, -1 on error. */
    int (*name_taken)(tz_backend *b, const char *name, traza_err *err);
    /* Sets the metadata entries kv[0..n-1] of trace `id` in one transaction: key
     * "alias" is the alias column, any other a trace_param row; a NULL value removes
     * the entry. Keys are checked by the caller (meta.c). */
    int (*meta_set)(tz_backend *b, int64_t id, const traza_kv *kv, size_t n, traza_err *err);

    int (*w_begin)(tz_backend *b, const char *name, tz_wstate **out, traza_err *err);
    int (*w_producer)(tz_wstate *w, const traza_producer *p, traza_err *err);
    int (*w_event_type)(tz_wstate *w, const traza_event_type *t, traza_err *err);
    int (*w_param_def)(tz_wstate *w, const traza_param_def *d, traza_err *err);
    int (*w_param_const)(tz_wstate *w, int32_t def, const traza_value *v, traza_err *err);
    /* Events arrive in any order; `seq` is the arrival number (0-based). */
    int (*w_event)(tz_wstate *w, const traza_event *ev, int64_t seq, traza_err *err);
    /* Sorts by time if `sorted` is 0, builds indexes and publishes with `info`; with
     * `replace`, a trace of the same name is removed in the transaction that publishes
     * this one (which gets a new id, greater than the one it replaces). */
    int (*w_commit)(tz_wstate *w, int sorted, int replace, const traza_trace_info *info, int64_t *id, traza_err *err);
    void (*w_abort)(tz_wstate *w);
    /* Optional: store the events packed (1) or in rows (0); strong: the user's choice
     * (traza_writer_set_layout), else the importer's default (traza_writer_pack_events). */
    void (*w_layout)(tz_wstate *w, int packed, int strong);

    int (*t_open)(tz_backend *b, int64_t id, int write, tz_tstate **out, traza_err *err);
    void (*t_close)(tz_tstate *t);
    int (*t_load_model)(tz_tstate *t, tz_model *m, traza_err *err);
    /* Optional: what the trace takes (traza_trace_storage_of). */
    int (*t_storage)(tz_tstate *t, traza_trace_storage *out, traza_err *err);
    /* The longest interval (end_ts - ts) of the trace, for overlap queries. */
    int64_t (*t_max_duration)(tz_tstate *t);

    int (*q_open)(tz_tstate *t, const tz_bfilter *f, tz_qstate **out, traza_err *err);
    /* 1 = row in *ev (params owned by the query), 0 = end, -1 = error. */
    int (*q_next)(tz_qstate *q, traza_event *ev, traza_err *err);
    void (*q_close)(tz_qstate *q);
    int64_t (*q_count)(tz_tstate *t, const tz_bfilter *f, traza_err *err);

    /* Results: payload kinds are handled by the backend; listing metadata generic. */
    int64_t (*r_save)(tz_tstate *t, const traza_result_meta *m, traza_result_kind kind, int64_t size,
                      const char *target, const void *payload, size_t n, traza_err *err);
    int (*r_list)(tz_tstate *t, traza_result_info **out, size_t *n, traza_err *err);
    int (*r_delete)(tz_tstate *t, int64_t id, traza_err *err);
    int (*r_events)(tz_tstate *t, int64_t id, int64_t **ids, size_t *n, traza_err *err);
    int (*r_producers)(tz_tstate *t, int64_t id, int32_t **ids, size_t *n, traza_err *err);
    int (*r_sets_of_event)(tz_tstate *t, int64_t event, int64_t **ids, size_t *n, traza_err *err);
    int (*r_group)(tz_tstate *t, int64_t id, traza_group_node **nodes, size_t *n, traza_err *err);
    int (*r_annotations)(tz_tstate *t, int64_t id, traza_annotation **a, size_t *n, traza_err *err);

    /* Optional fast scans for analyses (NULL: the generic layer scans through
     * q_open/q_next). s_open opens a query that returns only id, ts, end (= ts when
     * the event has no end), type and producer; s_next fills up to `max` rows into
     * the arrays and returns how many (0 at the end, -1 on error). Closed by q_close.
     * The filter has no regexes and needs no parameters. */
    int (*s_open)(tz_tstate *t, const tz_bfilter *f, tz_qstate **out, traza_err *err);
    int64_t (*s_next)(tz_qstate *q, size_t max, int64_t *id, int64_t *ts, int64_t *end, int32_t *type, int32_t *producer,
                      traza_err *err);

    /* Optional ranks (rank = 0-based position in time order), NULL where the backend
     * has none (the public calls then answer TRAZA_E_UNSUPPORTED). t_ranks: for each
     * ts, the number of events that start before it. t_rows: ts, type and producer
     * of the events of the given ranks. t_overview: every step-th event (ranks 0,
     * step, 2 step, ...), owned by the open trace. */
    int (*t_ranks)(tz_tstate *t, const int64_t *ts, size_t n, int64_t *rank, traza_err *err);
    int (*t_rows)(tz_tstate *t, const int64_t *rank, size_t n, int64_t *ts, int32_t *type, int32_t *producer,
                  traza_err *err);
    int (*t_overview)(tz_tstate *t, int64_t *step, size_t *n, const int64_t **ts, const int32_t **type,
                      const int32_t **producer, traza_err *err);

    /* SQL sessions on an open trace (sql_views.c writes the views). sql_setup runs
     * `ddl` (statements creating the session's temporary tables and views) once;
     * sql_run runs one read-only statement under `stop` (SQLite) and `timeout_ms`
     * (PostgreSQL's statement_timeout; 0 = none), passing the rows to `sink`. */
    int (*sql_setup)(tz_tstate *t, const char *ddl, traza_err *err);
    int (*sql_run)(tz_tstate *t, const char *stmt, const traza_stop *stop, int64_t timeout_ms,
                   const struct traza_sql_sink *sink, traza_err *err);
} tz_backend_ops;

struct tz_backend {
    const tz_backend_ops *ops;
    traza_ctx *ctx;
};

/* One row of a SQL session's statement on its way to a traza_sql_sink
 * (sql_views.c): the backends fill v (column names, then values) and k. */
typedef struct tz_sql_row {
    size_t n;
    const char **v;
    traza_sql_kind *k;
} tz_sql_row;
int tz_sql_row_init(tz_sql_row *r, size_t n, traza_err *err);
/* Passes v as the column names (header) or as a row to the sink: 0, or -1 with
 * TRAZA_E_CANCELLED when the sink stops. */
int tz_sql_row_emit(tz_sql_row *r, const traza_sql_sink *sink, int header, traza_err *err);
void tz_sql_row_free(tz_sql_row *r);

/* Backend constructors. */
tz_backend *tz_sqlite_open(traza_ctx *ctx, const char *dir, traza_err *err);
/* 1 if dir holds a workspace catalogue, 0 if not. */
int tz_sqlite_exists(const char *dir);
/* PostgreSQL: a libpq connection URI (postgresql://...); see pg_catalog.c. */
tz_backend *tz_pg_open(traza_ctx *ctx, const char *uri, traza_err *err);

#endif
