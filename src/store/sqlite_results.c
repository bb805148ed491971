/* SQLite backend: results stored in the trace store. */
#include "store/sqlite_internal.h"

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
    snprintf(sql, sizeof sql,
             "DELETE FROM result_event WHERE result=%1$lld; DELETE FROM result_producer WHERE result=%1$lld;"
             "DELETE FROM result_group WHERE result=%1$lld; DELETE FROM result_annotation WHERE result=%1$lld;"
             "DELETE FROM result WHERE id=%1$lld;",
             (long long)id);
    return tz_sql_exec(db, sql, "deleting a result", err);
}

int64_t tz_sqlite_r_save(tz_tstate *t, const traza_result_meta *m, traza_result_kind kind, int64_t size,
                         const char *target, const void *payload, size_t n, traza_err *err)
{
    sqlite3 *db = t->db;
    sqlite3_stmt *st = NULL;
    if (tz_sql_exec(db, "BEGIN IMMEDIATE", "saving a result", err) < 0)
        return -1;
    if (tz_sql_prepare(db, "SELECT id FROM result WHERE name=?", &st, err) < 0)
        goto fail;
    sqlite3_bind_text(st, 1, m->name, -1, SQLITE_STATIC);
    int64_t old = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    st = NULL;
    if (old && !m->replace) {
        traza_err_set(err, TRAZA_E_EXISTS, "a result named '%s' already exists (choose another name, or replace it)", m->name);
        goto fail;
    }
    if (old && delete_rows(db, old, err) < 0)
        goto fail;
    if (tz_sql_prepare(db, "INSERT INTO result(name, kind, tool, params, created, size, target) VALUES(?,?,?,?,?,?,?)", &st, err) < 0)
        goto fail;
    sqlite3_bind_text(st, 1, m->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, (int)kind);
    if (m->tool) sqlite3_bind_text(st, 3, m->tool, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 3);
    if (m->params) sqlite3_bind_text(st, 4, m->params, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 4);
    sqlite3_bind_int64(st, 5, (int64_t)time(NULL));
    sqlite3_bind_int64(st, 6, size);
    if (target) sqlite3_bind_text(st, 7, target, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 7);
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
    sqlite3_stmt *st;
    if (tz_sql_prepare(t->db, "SELECT id, name, kind, tool, params, created, size, target FROM result ORDER BY id", &st, err) < 0)
        return -1;
    traza_result_info *arr = NULL;
    size_t cnt = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (TZ_GROW(arr, cap, cnt + 1) < 0)
            goto oom;
        traza_result_info *r = &arr[cnt++];
        memset(r, 0, sizeof *r);
        r->id = sqlite3_column_int64(st, 0);
        r->name = tz_strdup((const char *)sqlite3_column_text(st, 1));
        r->kind = (traza_result_kind)sqlite3_column_int(st, 2);
        const unsigned char *s;
        if ((s = sqlite3_column_text(st, 3))) r->tool = tz_strdup((const char *)s);
        if ((s = sqlite3_column_text(st, 4))) r->params = tz_strdup((const char *)s);
        r->created = sqlite3_column_int64(st, 5);
        r->size = sqlite3_column_int64(st, 6);
        if ((s = sqlite3_column_text(st, 7))) r->target = tz_strdup((const char *)s);
        if (!r->name)
            goto oom;
    }
    sqlite3_finalize(st);
    *out = arr;
    *n = cnt;
    return 0;
oom:
    sqlite3_finalize(st);
    traza_result_info_array_free(arr, cnt);
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
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
    sqlite3_stmt *st;
    if (tz_sql_prepare(t->db, "SELECT event FROM result_event WHERE result=? ORDER BY event", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int64_t *arr = NULL;
    size_t cnt = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (TZ_GROW(arr, cap, cnt + 1) < 0) {
            free(arr);
            sqlite3_finalize(st);
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        }
        arr[cnt++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    *ids = arr;
    *n = cnt;
    return 0;
}

int tz_sqlite_r_producers(tz_tstate *t, int64_t id, int32_t **ids, size_t *n, traza_err *err)
{
    sqlite3_stmt *st;
    if (tz_sql_prepare(t->db, "SELECT producer FROM result_producer WHERE result=? ORDER BY producer", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int32_t *arr = NULL;
    size_t cnt = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (TZ_GROW(arr, cap, cnt + 1) < 0) {
            free(arr);
            sqlite3_finalize(st);
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        }
        arr[cnt++] = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    *ids = arr;
    *n = cnt;
    return 0;
}

int tz_sqlite_r_group(tz_tstate *t, int64_t id, traza_group_node **nodes, size_t *n, traza_err *err)
{
    sqlite3_stmt *st;
    if (tz_sql_prepare(t->db, "SELECT node, parent, name, ordered, ref_kind, ref, position FROM result_group WHERE result=? ORDER BY node",
                       &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    traza_group_node *arr = NULL;
    size_t cnt = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (TZ_GROW(arr, cap, cnt + 1) < 0)
            goto oom;
        traza_group_node *g = &arr[cnt++];
        memset(g, 0, sizeof *g);
        g->id = sqlite3_column_int64(st, 0);
        g->parent = sqlite3_column_int64(st, 1);
        const unsigned char *s = sqlite3_column_text(st, 2);
        if (s && !(g->name = tz_strdup((const char *)s)))
            goto oom;
        g->ordered = sqlite3_column_int(st, 3);
        g->ref_kind = sqlite3_column_int(st, 4);
        g->ref = sqlite3_column_int64(st, 5);
        g->position = sqlite3_column_int64(st, 6);
    }
    sqlite3_finalize(st);
    *nodes = arr;
    *n = cnt;
    return 0;
oom:
    sqlite3_finalize(st);
    traza_group_nodes_free(arr, cnt);
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
}

int tz_sqlite_r_annotations(tz_tstate *t, int64_t id, traza_annotation **a, size_t *n, traza_err *err)
{
    sqlite3_stmt *st;
    if (tz_sql_prepare(t->db, "SELECT key, value, vkind, ts_from, ts_to FROM result_annotation WHERE result=? ORDER BY seq", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    traza_annotation *arr = NULL;
    size_t cnt = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (TZ_GROW(arr, cap, cnt + 1) < 0)
            goto oom;
        traza_annotation *x = &arr[cnt++];
        memset(x, 0, sizeof *x);
        x->key = tz_strdup((const char *)sqlite3_column_text(st, 0));
        x->value.kind = (traza_ptype)sqlite3_column_int(st, 2);
        switch (x->value.kind) {
        case TRAZA_PT_INT:
        case TRAZA_PT_HEX: x->value.i = sqlite3_column_int64(st, 1); break;
        case TRAZA_PT_DOUBLE: x->value.d = sqlite3_column_double(st, 1); break;
        default:
            x->value.kind = TRAZA_PT_STRING;
            x->value.s = tz_strdup((const char *)sqlite3_column_text(st, 1));
            if (!x->value.s)
                goto oom;
        }
        if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
            x->has_range = 1;
            x->from = sqlite3_column_int64(st, 3);
            x->to = sqlite3_column_int64(st, 4);
        }
        if (!x->key)
            goto oom;
    }
    sqlite3_finalize(st);
    *a = arr;
    *n = cnt;
    return 0;
oom:
    sqlite3_finalize(st);
    traza_annotations_free(arr, cnt);
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
}
