/* PostgreSQL backend: results stored in the trace's schema. Payload rows are sent
 * with COPY; a save is one transaction (a savepoint when queries are open). */
#include "store/pg_internal.h"
#include "store/sql_common.h"
#include "traza/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The rows of an event set (wide: 8-byte ids) or producer set: sorted, duplicates
 * dropped, as SQLite's INSERT OR IGNORE does; *count gets how many remain. */
static int set_rows(int64_t rid, const void *payload, size_t n, int wide, tz_buf *b, size_t *count, traza_err *err)
{
    int64_t *v = malloc(n * sizeof *v);
    if (!v)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        v[i] = wide ? ((const int64_t *)payload)[i] : ((const int32_t *)payload)[i];
    qsort(v, n, sizeof *v, cmp_i64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || v[i] != v[i - 1]) {
            tz_buf_printf(b, "%lld\t%lld\n", (long long)rid, (long long)v[i]);
            k++;
        }
    free(v);
    *count = k;
    return 0;
}

/* Builds the COPY rows of a payload; *count gets the stored row count. */
static int payload_rows(int64_t rid, traza_result_kind kind, const void *payload, size_t n, tz_buf *b, size_t *count,
                        const char **copy, traza_err *err)
{
    *count = n;
    if (kind == TRAZA_RES_EVENT_SET || kind == TRAZA_RES_PRODUCER_SET) {
        if (set_rows(rid, payload, n, kind == TRAZA_RES_EVENT_SET, b, count, err) < 0)
            return -1;
        *copy = kind == TRAZA_RES_EVENT_SET ? "COPY result_event FROM STDIN" : "COPY result_producer FROM STDIN";
    } else if (kind == TRAZA_RES_GROUP) {
        const traza_group_node *g = payload;
        for (size_t i = 0; i < n; i++) {
            tz_buf_printf(b, "%lld\t%lld\t%lld\t", (long long)rid, (long long)g[i].id, (long long)g[i].parent);
            if (g[i].name)
                tz_pg_copy_str(b, g[i].name);
            else
                tz_buf_puts(b, "\\N");
            tz_buf_printf(b, "\t%d\t%d\t%lld\t%lld\n", g[i].ordered, g[i].ref_kind, (long long)g[i].ref, (long long)g[i].position);
        }
        *copy = "COPY result_group FROM STDIN";
    } else if (kind == TRAZA_RES_ANNOTATION) {
        const traza_annotation *a = payload;
        for (size_t i = 0; i < n; i++) {
            tz_buf_printf(b, "%lld\t%zu\t", (long long)rid, i);
            tz_pg_copy_str(b, a[i].key);
            tz_buf_putc(b, '\t');
            switch (a[i].value.kind) {
            case TRAZA_PT_INT:
            case TRAZA_PT_HEX: tz_buf_printf(b, "%lld", (long long)a[i].value.i); break;
            case TRAZA_PT_DOUBLE: tz_pg_copy_double(b, a[i].value.d); break;
            case TRAZA_PT_STRING: tz_pg_copy_str(b, a[i].value.s ? a[i].value.s : ""); break;
            }
            tz_buf_printf(b, "\t%d\t", (int)a[i].value.kind);
            if (a[i].has_range)
                tz_buf_printf(b, "%lld\t%lld\n", (long long)a[i].from, (long long)a[i].to);
            else
                tz_buf_puts(b, "\\N\t\\N\n");
        }
        *copy = "COPY result_annotation FROM STDIN";
    }
    return b->oom ? traza_err_set(err, TRAZA_E_NOMEM, "out of memory") : 0;
}

/* Starts a write: a transaction, or a savepoint inside the open read transaction. */
static int begin_write(tz_tstate *t, traza_err *err)
{
    if (PQtransactionStatus(t->conn) == PQTRANS_INTRANS)
        return tz_pg_exec(t->conn, "SAVEPOINT tz_save", "saving a result", err);
    return tz_pg_exec(t->conn, "BEGIN", "saving a result", err);
}

static int end_write(tz_tstate *t, int ok, traza_err *err)
{
    if (t->in_tx && t->ncursors > 0) {
        if (ok)
            return tz_pg_exec(t->conn, "RELEASE SAVEPOINT tz_save", "saving a result", err);
        PQclear(PQexec(t->conn, "ROLLBACK TO SAVEPOINT tz_save"));
        return -1;
    }
    if (ok)
        return tz_pg_exec(t->conn, "COMMIT", "saving a result", err);
    PQclear(PQexec(t->conn, "ROLLBACK"));
    return -1;
}

static int delete_rows(tz_tstate *t, int64_t id, traza_err *err)
{
    char sql[512];
    tz_result_delete_sql(sql, sizeof sql, id);
    return tz_pg_exec(t->conn, sql, "deleting a result", err);
}

/* Result rows from one PGresult (the readers are in sql_common.c); values are text. */
static int rows_open(tz_rows *r, const char *sql, const int64_t *id, const char *what, traza_err *err)
{
    char ids[24];
    const char *v[1] = {ids};
    if (id)
        snprintf(ids, sizeof ids, "%lld", (long long)*id);
    PGresult *res = tz_pg_query(r->conn, sql, id ? 1 : 0, id ? v : NULL, what, err);
    if (!res)
        return -1;
    r->h = res;
    r->row = -1;
    r->nrows = PQntuples(res);
    return 0;
}

static int rows_next(tz_rows *r) { return ++r->row < r->nrows; }
static int rows_is_null(tz_rows *r, int col) { return PQgetisnull(r->h, r->row, col); }
static int64_t rows_i64(tz_rows *r, int col) { return tz_pg_i64(r->h, r->row, col); }
static double rows_f64(tz_rows *r, int col) { return strtod(PQgetvalue(r->h, r->row, col), NULL); }
static char *rows_str(tz_rows *r, int col) { return tz_pg_text_get(r->h, r->row, col); }
static void rows_close(tz_rows *r) { PQclear(r->h); }

static int rows_ncols(tz_rows *r) { return PQnfields(r->h); }

static const tz_rows_ops rows_ops = {"$1", rows_open, rows_next, rows_is_null, rows_i64, rows_f64, rows_str, rows_close, rows_ncols};

int64_t tz_pg_r_save(tz_tstate *t, const traza_result_meta *m, traza_result_kind kind, int64_t size,
                     const char *target, const void *payload, size_t n, traza_err *err)
{
    if (t->ncursors == 0 && t->in_tx) {
        /* a read transaction left over: finish it first */
        tz_pg_end_tx(t->conn, err);
        t->in_tx = 0;
    }
    if (begin_write(t, err) < 0)
        return -1;
    tz_buf rows;
    tz_buf_init(&rows);
    int64_t rid = -1;
    const char *v1[1] = {m->name};
    /* a store made before the provenance columns gets them */
    if (tz_pg_exec(t->conn, "ALTER TABLE result ADD COLUMN IF NOT EXISTS inputs text, ADD COLUMN IF NOT EXISTS version text",
                   "saving a result", err) < 0)
        goto fail;
    PGresult *r = tz_pg_query(t->conn, "SELECT id, tool, params FROM result WHERE name=$1 FOR UPDATE", 1, v1, "saving a result", err);
    if (!r)
        goto fail;
    int64_t old = PQntuples(r) ? tz_pg_i64(r, 0, 0) : 0;
    int taken = old && !m->replace &&
                tz_result_exists(err, m, PQgetisnull(r, 0, 1) ? NULL : PQgetvalue(r, 0, 1),
                                 PQgetisnull(r, 0, 2) ? NULL : PQgetvalue(r, 0, 2)) < 0;
    PQclear(r);
    if (taken)
        goto fail;
    if (old && delete_rows(t, old, err) < 0)
        goto fail;
    char kinds[16], created[24], sizes[24];
    snprintf(kinds, sizeof kinds, "%d", (int)kind);
    snprintf(created, sizeof created, "%lld", (long long)time(NULL));
    snprintf(sizes, sizeof sizes, "%lld", (long long)size);
    const char *v[9] = {m->name, kinds, m->tool, m->params, created, sizes, target, m->inputs && *m->inputs ? m->inputs : NULL,
                        TRAZA_VERSION_STRING};
    r = tz_pg_query(t->conn,
                    "INSERT INTO result(name, kind, tool, params, created, size, target, inputs, version)"
                    " VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9) RETURNING id",
                    9, v, "saving a result", err);
    if (!r)
        goto fail;
    rid = tz_pg_i64(r, 0, 0);
    PQclear(r);
    if (kind != TRAZA_RES_PROCESSED_TRACE && n > 0) {
        size_t count;
        const char *copy = NULL;
        if (payload_rows(rid, kind, payload, n, &rows, &count, &copy, err) < 0 ||
            tz_pg_copy(t->conn, copy, rows.s, rows.len, "saving a result", err) < 0)
            goto fail;
        if (kind == TRAZA_RES_EVENT_SET || kind == TRAZA_RES_PRODUCER_SET) {
            char sql[128];
            snprintf(sql, sizeof sql, "UPDATE result SET size=%zu WHERE id=%lld", count, (long long)rid);
            if (tz_pg_exec(t->conn, sql, "saving a result", err) < 0)
                goto fail;
        }
    } else if (kind == TRAZA_RES_EVENT_SET || kind == TRAZA_RES_PRODUCER_SET) {
        char sql[128];
        snprintf(sql, sizeof sql, "UPDATE result SET size=0 WHERE id=%lld", (long long)rid);
        if (tz_pg_exec(t->conn, sql, "saving a result", err) < 0)
            goto fail;
    }
    tz_buf_free(&rows);
    if (end_write(t, 1, err) < 0)
        return -1;
    return rid;
fail:
    tz_buf_free(&rows);
    end_write(t, 0, err);
    return -1;
}

int tz_pg_r_list(tz_tstate *t, traza_result_info **out, size_t *n, traza_err *err)
{
    return tz_rows_results(&rows_ops, t->conn, out, n, err);
}

int tz_pg_r_delete(tz_tstate *t, int64_t id, traza_err *err)
{
    if (t->ncursors == 0 && t->in_tx) {
        tz_pg_end_tx(t->conn, err);
        t->in_tx = 0;
    }
    if (begin_write(t, err) < 0)
        return -1;
    int ok = delete_rows(t, id, err) == 0;
    return end_write(t, ok, err);
}

int tz_pg_r_events(tz_tstate *t, int64_t id, int64_t **ids, size_t *n, traza_err *err)
{
    return tz_rows_events(&rows_ops, t->conn, id, ids, n, err);
}

int tz_pg_r_sets_of_event(tz_tstate *t, int64_t event, int64_t **ids, size_t *n, traza_err *err)
{
    return tz_rows_sets_of_event(&rows_ops, t->conn, event, ids, n, err);
}

int tz_pg_r_producers(tz_tstate *t, int64_t id, int32_t **ids, size_t *n, traza_err *err)
{
    return tz_rows_producers(&rows_ops, t->conn, id, ids, n, err);
}

int tz_pg_r_group(tz_tstate *t, int64_t id, traza_group_node **nodes, size_t *n, traza_err *err)
{
    return tz_rows_group(&rows_ops, t->conn, id, nodes, n, err);
}

int tz_pg_r_annotations(tz_tstate *t, int64_t id, traza_annotation **a, size_t *n, traza_err *err)
{
    return tz_rows_annotations(&rows_ops, t->conn, id, a, n, err);
}
