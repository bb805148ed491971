/* SQL both store backends build and read the same way (sql_common.c): the WHERE
 * clause of a filter and the readers of saved results. A backend supplies only what
 * differs: how a value reaches the statement and how rows are fetched. */
#ifndef TZ_SQL_COMMON_H
#define TZ_SQL_COMMON_H

#include "store/backend.h"
#include "util/util.h"

/* How a backend writes the variable parts of a WHERE clause. */
typedef struct tz_where_style {
    /* A time or id value: slot 1 = lo id, 2 = hi id, 3 = overlap start. SQLite writes
     * the placeholder ?slot, PostgreSQL the number itself. */
    void (*put_i64)(tz_buf *b, int slot, int64_t v);
    /* For a producer filter without types: lets the (type, producer) index serve. */
    void (*all_types)(tz_buf *b, void *ctx);
    /* A parameter condition's comparison (" AND ..."), after its def list. `slot` is
     * the placeholder number SQLite binds it to. -1 when it cannot be written. */
    int (*cond)(tz_buf *b, const struct tz_bcond *c, int slot, void *ctx);
    /* Runs sql, a count whose one condition is written with slot 1, for condition c;
     * the count, or -1 when it could not run. */
    int64_t (*count)(const char *sql, const struct tz_bcond *c, void *ctx);
} tz_where_style;

/* The placeholder number of parameter condition i (after lo, hi, overlap start). */
#define TZ_WHERE_COND_SLOT(i) ((int)(4 + (i)))

/* Appends " WHERE id BETWEEN lo AND hi AND ..." for bf; -1 if a condition failed. */
int tz_where_build(tz_buf *b, const tz_bfilter *bf, int64_t lo, int64_t hi, const tz_where_style *s, void *ctx);
/* The statement that counts the events of bf in the id range [lo, hi] (binds as for
 * tz_where_build); -1 if a condition failed. */
int tz_count_sql(tz_buf *b, const tz_bfilter *bf, int64_t lo, int64_t hi, const tz_where_style *s, void *ctx);
/* " AND col IN (v0,v1,...)" */
void tz_where_int_list(tz_buf *b, const char *col, const int32_t *v, size_t n);
/* The SQL operator of a comparison. */
const char *tz_where_cmp(traza_cmp op);
/* A filter that is only a time window: its rows are one id range, so counts and
 * offsets are id arithmetic. */
int tz_where_id_range_only(const tz_bfilter *bf);

/* Rows of a result query, fetched by a backend. The handle fields are the backend's. */
typedef struct tz_rows tz_rows;
typedef struct tz_rows_ops {
    const char *param;  /* how the one parameter is spelled: "?" or "$1" */
    /* Runs sql (with *id bound to the parameter when id is not NULL). */
    int (*open)(tz_rows *r, const char *sql, const int64_t *id, const char *what, traza_err *err);
    int (*next)(tz_rows *r);                 /* 1 = a row, 0 = no more */
    int (*is_null)(tz_rows *r, int col);
    int64_t (*i64)(tz_rows *r, int col);
    double (*f64)(tz_rows *r, int col);
    char *(*str)(tz_rows *r, int col);       /* a copy; NULL if SQL NULL or out of memory */
    void (*close)(tz_rows *r);
    int (*ncols)(tz_rows *r);                /* the statement's column count */
} tz_rows_ops;

struct tz_rows {
    const tz_rows_ops *ops;
    void *conn;     /* sqlite3 * / PGconn * */
    void *h;        /* sqlite3_stmt * / PGresult * */
    int row, nrows;
};

int tz_rows_results(const tz_rows_ops *ops, void *conn, traza_result_info **out, size_t *n, traza_err *err);
int tz_rows_events(const tz_rows_ops *ops, void *conn, int64_t id, int64_t **ids, size_t *n, traza_err *err);
/* The ids of the event sets that hold event `event`, in order. */
int tz_rows_sets_of_event(const tz_rows_ops *ops, void *conn, int64_t event, int64_t **ids, size_t *n, traza_err *err);
int tz_rows_producers(const tz_rows_ops *ops, void *conn, int64_t id, int32_t **ids, size_t *n, traza_err *err);
int tz_rows_group(const tz_rows_ops *ops, void *conn, int64_t id, traza_group_node **nodes, size_t *n, traza_err *err);
int tz_rows_annotations(const tz_rows_ops *ops, void *conn, int64_t id, traza_annotation **a, size_t *n, traza_err *err);

/* The statements that delete result `id` and its rows, into sql (512 bytes are enough). */
void tz_result_delete_sql(char *sql, size_t size, int64_t id);
/* A save under a name that is taken, without replace: 0 when the result there was made
 * by the same tool with the same params (it is then written anew), else -1 with err
 * filled. */
int tz_result_exists(traza_err *err, const traza_result_meta *m, const char *tool, const char *params);

#endif
