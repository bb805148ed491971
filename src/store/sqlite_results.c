/* SQLite backend: results stored in the trace store. */
#include "store/sqlite_internal.h"
#include "store/sql_common.h"
#include "traza/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int insert_payload(sqlite3 *db, int64_t rid, traza_result_kind kind, const void *payload, size_t n, traza_err *err)
{
    static const char *const sql[] = {
        "INSERT INTO result_event VALUES(?1, ?2)",
        "INSERT INTO result_producer VALUES(?1, ?2)",
        "INSERT INTO result_group VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        "INSERT INTO result_annotation VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    };
    if (kind == TRAZA_RES_PROCESSED_TRACE || n == 0)
        return 0;
    sqlite3_stmt *st;
    if (tz_sql_prepare(db, kind == TRAZA_RES_EVENT_SET ? "INSERT OR IGNORE INTO result_event VALUES(?1, ?2)"
                           : kind == TRAZA_RES_PRODUCER_SET ? "INSERT OR IGNORE INTO result_producer VALUES(?1, ?2)"
                                                            : sql[kind],
                       &st, err) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, rid);
        if (kind == TRAZA_RES_EVENT_SET) {
            sqlite3_bind_int64(st, 2, ((const int64_t *)payload)[i]);
        } else if (kind == TRAZA_RES_PRODUCER_SET) {
            sqlite3_bind_int(st, 2, ((const int32_t *)payload)[i]);
        } else if (kind == TRAZA_RES_GROUP) {
            const traza_group_node *g = &((const traza_group_node *)payload)[i];
            sqlite3_bind_int64(st, 2, g->id);
            sqlite3_bind_int64(st, 3, g->parent);
            if (g->name) sqlite3_bind_text(st, 4, g->name, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 4);
            sqlite3_bind_int(st, 5, g->ordered);
            sqlite3_bind_int(st, 6, g->ref_kind);
            sqlite3_bind_int64(st, 7, g->ref);
            sqlite3_bind_int64(st, 8, g->position);
        } else {
            const traza_annotation *a = &((const traza_annotation *)payload)[i];
            sqlite3_bind_int64(st, 2, (int64_t)i);
            sqlite3_bind_text(st, 3, a->key, -1, SQLITE_STATIC);
            switch (a->value.kind) {
            case TRAZA_PT_INT:
            case TRAZA_PT_HEX: sqlite3_bind_int64(st, 4, a->value.i); break;
            case TRAZA_PT_DOUBLE: sqlite3_bind_double(st, 4, a->value.d); break;
            case TRAZA_PT_STRING: sqlite3_bind_text(st, 4, a->value.s ? a->value.s : "", -1, SQLITE_STATIC); break;
            }
            sqlite3_bind_int(st, 5, (int)a->value.kind);
            if (a->has_range) {
                sqlite3_bind_int64(st, 6, a->from);
                sqlite3_bind_int64(st, 7, a->to);
            } else {
                sqlite3_bind_null(st, 6);
                sqlite3_bind_null(st, 7);
            }
        }
        if (sqlite3_step(st) != SQLITE_DONE) {
            tz_sql_fail(db, "saving a result", err);
            sqlite3_finalize(st);
            return -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return 0;
}

static int delete_rows(sqlite3 *db, int64_t id, traza_err *err)
{
    char sql[512];
    tz_result_delete_sql(sql, sizeof sql, id);
    return tz_sql_exec(db, sql, "deleting a result", err);
}

/* Result rows through a prepared statement (the readers are in sql_common.c). A
 * step that fails ends the rows, as the readers always did here. */
static int rows_open(tz_rows *r, const char *sql, const int64_t *id, const char *what, traza_err *err)
{
    (void)what;
    sqlite3_stmt *st = NULL;
    if (tz_sql_prepare(r->conn, sql, &st, err) < 0)
        return -1;
    if (id)
        sqlite3_bind_int64(st, 1, *id);
    r->h = st;
    return 0;
}

static int rows_next(tz_rows *r) { return sqlite3_step(r->h) == SQLITE_ROW; }
static int rows_is_null(tz_rows *r, int col) { return sqlite3_column_type(r->h, col) == SQLITE_NULL; }
static int64_t rows_i64(tz_rows *r, int col) { return sqlite3_column_int64(r->h, col); }
static double rows_f64(tz_rows *r, int col) { return sqlite3_column_double(r->h, col); }
static char *rows_str(tz_rows *r, int col) { return tz_strdup((const char *)sqlite3_column_text(r->h, col)); }
static void rows_close(tz_rows *r) { sqlite3_finalize(r->h); }

static int rows_ncols(tz_rows *r) { return sqlite3_column_count(r->h); }

static const tz_rows_ops rows_ops = {"?", rows_open, rows_next, rows_is_null, rows_i64, rows_f64, rows_str, rows_close, rows_ncols};

int64_t tz_sqlite_r_save(tz_tstate *t, const traza_result_meta *m, traza_result_kind kind, int64_t size,
                         const char *target, const void *payload, size_t n, traza_err *err)
{
    sqlite3 *db = t->db;
    sqlite3_stmt *st = NULL;
    /* a store made before the provenance columns gets them (an error says they exist) */
    sqlite3_exec(db, "ALTER TABLE result ADD COLUMN inputs TEXT", NULL, NULL, NULL);
    sqlite3_exec(db, "ALTER TABLE result ADD COLUMN version TEXT", NULL, NULL, NULL);
    if (tz_sql_exec(db, "BEGIN IMMEDIATE", "saving a result", err) < 0)
        return -1;
    if (tz_sql_prepare(db, "SELECT id, tool, params FROM result WHERE name=?", &st, err) < 0)
        goto fail;
    sqlite3_bind_text(st, 1, m->name, -1, SQLITE_STATIC);
    int64_t old = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        old = sqlite3_column_int64(st, 0);
        if (!m->replace && tz_result_exists(err, m, (const char *)sqlite3_column_text(st, 1),
                                            (const char *)sqlite3_column_text(st, 2)) < 0)
            goto fail;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (old && delete_rows(db, old, err) < 0)
        goto fail;
    if (tz_sql_prepare(db, "INSERT INTO result(name, kind, tool, params, created, size, target, inputs, version) VALUES(?,?,?,?,?,?,?,?,?)", &st, err) < 0)
        goto fail;
    sqlite3_bind_text(st, 1, m->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, (int)kind);
    if (m->tool) sqlite3_bind_text(st, 3, m->tool, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 3);
    if (m->params) sqlite3_bind_text(st, 4, m->params, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 4);
    sqlite3_bind_int64(st, 5, (int64_t)time(NULL));
    sqlite3_bind_int64(st, 6, size);
    if (target) sqlite3_bind_text(st, 7, target, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 7);
    if (m->inputs && *m->inputs) sqlite3_bind_text(st, 8, m->inputs, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 8);
    sqlite3_bind_text(st, 9, TRAZA_VERSION_STRING, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) {
        tz_sql_fail(db, "saving a result", err);
        goto fail;
    }
    sqlite3_finalize(st);
    st = NULL;
    int64_t rid = sqlite3_last_insert_rowid(db);
    if (insert_payload(db, rid, kind, payload, n, err) < 0)
        goto fail;
    if (kind == TRAZA_RES_EVENT_SET || kind == TRAZA_RES_PRODUCER_SET) {
        /* duplicates were ignored: record the real member count */
        char sql[200];
        snprintf(sql, sizeof sql, "UPDATE result SET size=(SELECT count(*) FROM %s WHERE result=%lld) WHERE id=%lld",
                 kind == TRAZA_RES_EVENT_SET ? "result_event" : "result_producer", (long long)rid, (long long)rid);
        if (tz_sql_exec(db, sql, "saving a result", err) < 0)
            goto fail;
    }
    if (tz_sql_exec(db, "COMMIT", "saving a result", err) < 0)
        goto fail;
    return rid;
fail:
    sqlite3_finalize(st);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

int tz_sqlite_r_list(tz_tstate *t, traza_result_info **out, size_t *n, traza_err *err)
{
    return tz_rows_results(&rows_ops, t->db, out, n, err);
}

int tz_sqlite_r_delete(tz_tstate *t, int64_t id, traza_err *err)
{
    if (tz_sql_exec(t->db, "BEGIN IMMEDIATE", "deleting a result", err) < 0)
        return -1;
    if (delete_rows(t->db, id, err) < 0 || tz_sql_exec(t->db, "COMMIT", "deleting a result", err) < 0) {
        sqlite3_exec(t->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

int tz_sqlite_r_events(tz_tstate *t, int64_t id, int64_t **ids, size_t *n, traza_err *err)
{
    return tz_rows_events(&rows_ops, t->db, id, ids, n, err);
}

int tz_sqlite_r_sets_of_event(tz_tstate *t, int64_t event, int64_t **ids, size_t *n, traza_err *err)
{
    return tz_rows_sets_of_event(&rows_ops, t->db, event, ids, n, err);
}

int tz_sqlite_r_producers(tz_tstate *t, int64_t id, int32_t **ids, size_t *n, traza_err *err)
{
    return tz_rows_producers(&rows_ops, t->db, id, ids, n, err);
}

int tz_sqlite_r_group(tz_tstate *t, int64_t id, traza_group_node **nodes, size_t *n, traza_err *err)
{
    return tz_rows_group(&rows_ops, t->db, id, nodes, n, err);
}

int tz_sqlite_r_annotations(tz_tstate *t, int64_t id, traza_annotation **a, size_t *n, traza_err *err)
{
    return tz_rows_annotations(&rows_ops, t->db, id, a, n, err);
}
