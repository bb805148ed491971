/* SQL shared by the SQLite and PostgreSQL backends: the WHERE clause of a filter and
 * the readers of saved results (the tables and their columns are the same in both). */
#include "store/sql_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tz_where_int_list(tz_buf *b, const char *col, const int32_t *v, size_t n)
{
    tz_buf_printf(b, " AND %s IN (", col);
    for (size_t i = 0; i < n; i++)
        tz_buf_printf(b, "%s%d", i ? "," : "", v[i]);
    tz_buf_putc(b, ')');
}

const char *tz_where_cmp(traza_cmp op)
{
    switch (op) {
    case TRAZA_EQ: return "=";
    case TRAZA_NE: return "<>";
    case TRAZA_LT: return "<";
    case TRAZA_GT: return ">";
    case TRAZA_LE: return "<=";
    case TRAZA_GE: return ">=";
    }
    return "=";
}

int tz_where_id_range_only(const tz_bfilter *bf)
{
    const traza_filter *f = bf->f;
    return !bf->types && !f->producers && !bf->nconds && f->event_set <= 0 && !f->overlap;
}

static void put_defs(tz_buf *b, const struct tz_bcond *c)
{
    tz_buf_puts(b, " p.def IN (");
    for (size_t k = 0; k < c->ndefs; k++)
        tz_buf_printf(b, "%s%d", k ? "," : "", c->defs[k]);
    tz_buf_putc(b, ')');
}

/* A parameter condition is written one of two ways, for the same rows:
 *  - EXISTS, probed per event of the id window: cost in events of the window;
 *  - id IN (the events whose parameter matches, from the (def, value) index): cost in
 *    matching parameters.
 * Neither SQLite nor PostgreSQL can tell which is cheaper without knowing how many
 * parameters match (a value = x on 2 M events: 20 s one way, 0.1 s the other; a
 * value > 5 on a window of 1 000 events: 0.1 s one way, 40 s the other). So the
 * matches are counted first, up to a sixteenth of the window: a condition with fewer
 * matches than that is sparse and takes the index. The count reads at most that many
 * index entries, a sixteenth of what EXISTS would probe. 1 = sparse, 0 = not, -1 when
 * the condition cannot be written. */
static int cond_is_sparse(const struct tz_bcond *c, int64_t lo, int64_t hi, const tz_where_style *s, void *ctx)
{
    if (!s->count || hi < lo)
        return 0;
    int64_t limit = (hi - lo + 1) / 16;
    if (limit < 1)
        return 0;
    tz_buf q;
    tz_buf_init(&q);
    tz_buf_puts(&q, "SELECT count(*) FROM (SELECT 1 FROM param p WHERE");
    put_defs(&q, c);
    if (s->cond(&q, c, 1, ctx) < 0) {
        tz_buf_free(&q);
        return -1;
    }
    tz_buf_printf(&q, " LIMIT %lld) AS m", (long long)limit);
    /* a probe that cannot run leaves the choice to EXISTS; the query itself then
     * reports what is wrong */
    int64_t n = q.oom ? -1 : s->count(q.s, c, ctx);
    tz_buf_free(&q);
    return n >= 0 && n < limit;
}

int tz_where_build(tz_buf *b, const tz_bfilter *bf, int64_t lo, int64_t hi, const tz_where_style *s, void *ctx)
{
    const traza_filter *f = bf->f;
    tz_buf_puts(b, " WHERE id BETWEEN ");
    s->put_i64(b, 1, lo);
    tz_buf_puts(b, " AND ");
    s->put_i64(b, 2, hi);
    if (bf->types)
        tz_where_int_list(b, "type", bf->types, bf->ntypes);
    if (f->producers) {
        if (!bf->types)
            s->all_types(b, ctx);
        tz_where_int_list(b, "producer", f->producers, f->nproducers);
    }
    if (f->overlap && f->has_from) {
        tz_buf_puts(b, " AND (ts >= ");
        s->put_i64(b, 3, f->from);
        tz_buf_puts(b, " OR end_ts >= ");
        s->put_i64(b, 3, f->from);
        tz_buf_putc(b, ')');
    }
    for (size_t i = 0; i < bf->nconds; i++) {
        const struct tz_bcond *c = &bf->conds[i];
        int sparse = cond_is_sparse(c, lo, hi, s, ctx);
        if (sparse < 0)
            return -1;
        /* the types whose one value of the parameter matches (tz_bcond.ctypes) match
         * without a parameter row */
        tz_buf_puts(b, " AND ");
        if (c->nctypes) {
            tz_buf_puts(b, "(type IN (");
            for (size_t k = 0; k < c->nctypes; k++)
                tz_buf_printf(b, "%s%d", k ? "," : "", c->ctypes[k]);
            tz_buf_puts(b, ") OR ");
        }
        if (sparse) {
            tz_buf_puts(b, "id IN (SELECT p.event FROM param p WHERE p.event BETWEEN ");
            s->put_i64(b, 1, lo);
            tz_buf_puts(b, " AND ");
            s->put_i64(b, 2, hi);
            tz_buf_puts(b, " AND");
        } else {
            tz_buf_puts(b, "EXISTS (SELECT 1 FROM param p WHERE p.event = event.id AND");
        }
        put_defs(b, c);
        if (s->cond(b, c, TZ_WHERE_COND_SLOT(i), ctx) < 0)
            return -1;
        tz_buf_puts(b, c->nctypes ? "))" : ")");
    }
    if (f->event_set > 0 && f->event_set_node > 0)
        /* the event leaves of one node's subtree of a group */
        tz_buf_printf(b,
                      " AND id IN (WITH RECURSIVE sub(n) AS (SELECT node FROM result_group WHERE result = %1$lld AND node = %2$lld"
                      " UNION ALL SELECT g.node FROM result_group g, sub"
                      " WHERE g.result = %1$lld AND g.parent = sub.n) SELECT g.ref FROM result_group g WHERE g.result = %1$lld"
                      " AND g.ref_kind = %3$d AND g.node IN (SELECT n FROM sub))",
                      (long long)f->event_set, (long long)f->event_set_node, TRAZA_GROUP_EVENT);
    else if (f->event_set > 0)
        /* an event set's members, or a group's event leaves: a result is one or the other */
        tz_buf_printf(b,
                      " AND id IN (SELECT event FROM result_event WHERE result = %1$lld"
                      " UNION ALL SELECT ref FROM result_group WHERE result = %1$lld AND ref_kind = %2$d)",
                      (long long)f->event_set, TRAZA_GROUP_EVENT);
    return 0;
}

int tz_count_sql(tz_buf *b, const tz_bfilter *bf, int64_t lo, int64_t hi, const tz_where_style *s, void *ctx)
{
    const traza_filter *f = bf->f;
    if (bf->nconds == 1 && !bf->conds[0].nctypes && !bf->types && !f->producers && f->event_set <= 0 && !f->overlap &&
        !f->nregexes) {
        /* A window and one parameter condition: the matching parameters are counted
         * from the (def, value) index alone. Each is one event: an event has one type,
         * and a type one parameter of a name, so at most one of the defs. */
        tz_buf_puts(b, "SELECT count(*) FROM param p WHERE p.event BETWEEN ");
        s->put_i64(b, 1, lo);
        tz_buf_puts(b, " AND ");
        s->put_i64(b, 2, hi);
        tz_buf_puts(b, " AND");
        put_defs(b, &bf->conds[0]);
        return s->cond(b, &bf->conds[0], TZ_WHERE_COND_SLOT(0), ctx);
    }
    tz_buf_puts(b, "SELECT count(*) FROM event");
    return tz_where_build(b, bf, lo, hi, s, ctx);
}

/* Runs a query of one result's rows: fmt has one %s where the parameter goes. */
static int open_by_result(tz_rows *r, const tz_rows_ops *ops, void *conn, const char *fmt, int64_t id, traza_err *err)
{
    char sql[256];
    memset(r, 0, sizeof *r);
    r->ops = ops;
    r->conn = conn;
    snprintf(sql, sizeof sql, fmt, ops->param);
    return ops->open(r, sql, &id, "reading a result", err);
}

static int oom(tz_rows *r, traza_err *err)
{
    r->ops->close(r);
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
}

int tz_rows_results(const tz_rows_ops *ops, void *conn, traza_result_info **out, size_t *n, traza_err *err)
{
    tz_rows r = {.ops = ops, .conn = conn};
    /* every column: a store made before the provenance columns has 8 */
    if (ops->open(&r, "SELECT * FROM result ORDER BY id", NULL, "listing results", err) < 0)
        return -1;
    int prov = ops->ncols(&r) >= 10;
    traza_result_info *arr = NULL;
    size_t cnt = 0, cap = 0;
    while (ops->next(&r)) {
        if (TZ_GROW(arr, cap, cnt + 1) < 0)
            goto fail;
        traza_result_info *x = &arr[cnt++];
        memset(x, 0, sizeof *x);
        x->id = ops->i64(&r, 0);
        x->name = ops->str(&r, 1);
        x->kind = (traza_result_kind)ops->i64(&r, 2);
        if (!ops->is_null(&r, 3) && !(x->tool = ops->str(&r, 3)))
            goto fail;
        if (!ops->is_null(&r, 4) && !(x->params = ops->str(&r, 4)))
            goto fail;
        x->created = ops->i64(&r, 5);
        x->size = ops->i64(&r, 6);
        if (!ops->is_null(&r, 7) && !(x->target = ops->str(&r, 7)))
            goto fail;
        if (prov && !ops->is_null(&r, 8) && !(x->inputs = ops->str(&r, 8)))
            goto fail;
        if (prov && !ops->is_null(&r, 9) && !(x->version = ops->str(&r, 9)))
            goto fail;
        if (!x->name)
            goto fail;
    }
    ops->close(&r);
    *out = arr;
    *n = cnt;
    return 0;
fail:
    traza_result_info_array_free(arr, cnt);
    return oom(&r, err);
}

/* The members of an event set (8-byte ids) or producer set (4-byte ids), in order. */
static int read_ids(const tz_rows_ops *ops, void *conn, const char *fmt, int64_t id, size_t elem, void **ids, size_t *n,
                    traza_err *err)
{
    tz_rows r;
    if (open_by_result(&r, ops, conn, fmt, id, err) < 0)
        return -1;
    void *arr = NULL;
    size_t cnt = 0, cap = 0;
    while (ops->next(&r)) {
        if (tz_grow(&arr, &cap, cnt + 1, elem) < 0) {
            free(arr);
            return oom(&r, err);
        }
        int64_t v = ops->i64(&r, 0);
        if (elem == sizeof(int64_t))
            ((int64_t *)arr)[cnt++] = v;
        else
            ((int32_t *)arr)[cnt++] = (int32_t)v;
    }
    ops->close(&r);
    *ids = arr;
    *n = cnt;
    return 0;
}

int tz_rows_events(const tz_rows_ops *ops, void *conn, int64_t id, int64_t **ids, size_t *n, traza_err *err)
{
    void *v = NULL;
    int rc = read_ids(ops, conn, "SELECT event FROM result_event WHERE result=%s ORDER BY event", id, sizeof **ids, &v, n, err);
    *ids = rc < 0 ? NULL : v;
    return rc;
}

int tz_rows_sets_of_event(const tz_rows_ops *ops, void *conn, int64_t event, int64_t **ids, size_t *n, traza_err *err)
{
    /* one primary-key look-up (result, event) per event set: no scan of the members */
    void *v = NULL;
    char fmt[200];
    snprintf(fmt, sizeof fmt,
             "SELECT r.id FROM result r WHERE r.kind=%d AND EXISTS(SELECT 1 FROM result_event e WHERE e.result=r.id AND e.event=%%s) ORDER BY r.id",
             (int)TRAZA_RES_EVENT_SET);
    int rc = read_ids(ops, conn, fmt, event, sizeof **ids, &v, n, err);
    *ids = rc < 0 ? NULL : v;
    return rc;
}

int tz_rows_producers(const tz_rows_ops *ops, void *conn, int64_t id, int32_t **ids, size_t *n, traza_err *err)
{
    void *v = NULL;
    int rc = read_ids(ops, conn, "SELECT producer FROM result_producer WHERE result=%s ORDER BY producer", id, sizeof **ids, &v, n, err);
    *ids = rc < 0 ? NULL : v;
    return rc;
}

int tz_rows_group(const tz_rows_ops *ops, void *conn, int64_t id, traza_group_node **nodes, size_t *n, traza_err *err)
{
    tz_rows r;
    if (open_by_result(&r, ops, conn,
                       "SELECT node, parent, name, ordered, ref_kind, ref, position FROM result_group WHERE result=%s ORDER BY node", id,
                       err) < 0)
        return -1;
    traza_group_node *arr = NULL;
    size_t cnt = 0, cap = 0;
    while (ops->next(&r)) {
        if (TZ_GROW(arr, cap, cnt + 1) < 0)
            goto fail;
        traza_group_node *g = &arr[cnt++];
        memset(g, 0, sizeof *g);
        g->id = ops->i64(&r, 0);
        g->parent = ops->i64(&r, 1);
        if (!ops->is_null(&r, 2) && !(g->name = ops->str(&r, 2)))
            goto fail;
        g->ordered = (int)ops->i64(&r, 3);
        g->ref_kind = (int)ops->i64(&r, 4);
        g->ref = ops->i64(&r, 5);
        g->position = ops->i64(&r, 6);
    }
    ops->close(&r);
    *nodes = arr;
    *n = cnt;
    return 0;
fail:
    traza_group_nodes_free(arr, cnt);
    return oom(&r, err);
}

int tz_rows_annotations(const tz_rows_ops *ops, void *conn, int64_t id, traza_annotation **a, size_t *n, traza_err *err)
{
    tz_rows r;
    if (open_by_result(&r, ops, conn, "SELECT key, value, vkind, ts_from, ts_to FROM result_annotation WHERE result=%s ORDER BY seq", id,
                       err) < 0)
        return -1;
    traza_annotation *arr = NULL;
    size_t cnt = 0, cap = 0;
    while (ops->next(&r)) {
        if (TZ_GROW(arr, cap, cnt + 1) < 0)
            goto fail;
        traza_annotation *x = &arr[cnt++];
        memset(x, 0, sizeof *x);
        x->key = ops->str(&r, 0);
        x->value.kind = (traza_ptype)ops->i64(&r, 2);
        switch (x->value.kind) {
        case TRAZA_PT_INT:
        case TRAZA_PT_HEX: x->value.i = ops->i64(&r, 1); break;
        case TRAZA_PT_DOUBLE: x->value.d = ops->f64(&r, 1); break;
        default:
            x->value.kind = TRAZA_PT_STRING;
            if (!(x->value.s = ops->str(&r, 1)))
                goto fail;
        }
        if (!ops->is_null(&r, 3)) {
            x->has_range = 1;
            x->from = ops->i64(&r, 3);
            x->to = ops->i64(&r, 4);
        }
        if (!x->key)
            goto fail;
    }
    ops->close(&r);
    *a = arr;
    *n = cnt;
    return 0;
fail:
    traza_annotations_free(arr, cnt);
    return oom(&r, err);
}

void tz_result_delete_sql(char *sql, size_t size, int64_t id)
{
    snprintf(sql, size,
             "DELETE FROM result_event WHERE result=%1$lld; DELETE FROM result_producer WHERE result=%1$lld;"
             "DELETE FROM result_group WHERE result=%1$lld; DELETE FROM result_annotation WHERE result=%1$lld;"
             "DELETE FROM result WHERE id=%1$lld;",
             (long long)id);
}

static int same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

int tz_result_exists(traza_err *err, const traza_result_meta *m, const char *tool, const char *params)
{
    /* the same tool on the same inputs makes the same result: running it again is
     * allowed, and writes it anew */
    if (same_text(m->tool, tool) && same_text(m->params, params))
        return 0;
    return traza_err_set(err, TRAZA_E_EXISTS, "a result named '%s' already exists, made by %s with %s (choose another name, or replace it)",
                         m->name, tool ? tool : "an unknown tool", params && *params ? params : "no options");
}
