/* SQLite backend: opening a trace store and running filtered queries.
 *
 * Events are stored with id = rank in time order, so a time window is an id range
 * found by binary search on the rowid (O(log n) page reads, no ts index needed). */
#include "store/sqlite_internal.h"
#include "store/sql_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tz_qstate {
    tz_tstate *t;
    sqlite3_stmt *st;
    sqlite3_stmt *params;  /* SELECT def, value FROM param WHERE event=? */
    int with_params;
    int done;              /* the statement returned SQLITE_DONE (s_next) */
    traza_param *pv;
    size_t npv, cappv;
    tz_buf strs;           /* parameter strings of the current row */
    const traza_stop *stop; /* the filter's, consulted while a step looks for a row */
    int stopped;           /* a step was stopped: the statement is not stepped again */
};

static int stop_progress(void *ctx)
{
    const traza_stop *st = ctx;
    return st->fn(st->ctx, TRAZA_STAGE_READ) != 0;
}

/* One step of the query, stoppable by the filter's stop: a step may pass over
 * millions of rows that do not match before it finds one. SQLITE_ROW, SQLITE_DONE,
 * or -1 with err set (TRAZA_E_CANCELLED when stopped). */
static int step(tz_qstate *q, traza_err *err)
{
    if (q->stopped)
        return traza_err_set(err, TRAZA_E_CANCELLED, "the query was stopped");
    if (q->stop)
        sqlite3_progress_handler(q->t->db, 1000, stop_progress, (void *)q->stop);
    int rc = sqlite3_step(q->st);
    if (q->stop)
        sqlite3_progress_handler(q->t->db, 0, NULL, NULL);
    if (rc == SQLITE_INTERRUPT && q->stop) {
        q->stopped = 1;
        return traza_err_set(err, TRAZA_E_CANCELLED, "the query was stopped while it looked for the next event");
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return tz_sql_fail(q->t->db, "reading events", err);
    return rc;
}

int tz_sqlite_t_open(tz_backend *b, int64_t id, int write, tz_tstate **out, traza_err *err)
{
    tz_sqlite *s = (tz_sqlite *)b;
    sqlite3_stmt *st;
    if ((write && tz_sqlite_writable(s, "save results in a trace", err) < 0) ||
        tz_sql_prepare(s->cat, "SELECT file, events FROM trace WHERE id=?", &st, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    char *file = NULL;
    int64_t events = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        file = tz_strdup((const char *)sqlite3_column_text(st, 0));
        events = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (!file)
        return traza_err_set(err, TRAZA_E_NOTFOUND, "trace %lld does not exist", (long long)id);
    char *path = tz_sqlite_trace_path(s, file);
    free(file);
    tz_tstate *t = calloc(1, sizeof *t);
    if (!t || !path) {
        free(t);
        free(path);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    t->ws = s;
    t->id = id;
    t->nevents = events;
    /* NOMUTEX: a trace is used by one thread at a time; per-call mutexes cost 15 % of a scan. */
    int flags = (write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &t->db, flags, NULL) != SQLITE_OK) {
        traza_err_set(err, TRAZA_E_IO, "%s: cannot open the trace store: %s", path, t->db ? sqlite3_errmsg(t->db) : "out of memory");
        free(path);
        tz_sqlite_t_close(t);
        return -1;
    }
    sqlite3_busy_timeout(t->db, 10000);
    /* Reads go through the page cache of the kernel without copies. */
    sqlite3_exec(t->db, "PRAGMA mmap_size=1073741824", NULL, NULL, NULL);
    sqlite3_stmt *m = NULL;
    if (tz_sql_prepare(t->db, "SELECT value FROM meta WHERE key='max_duration'", &m, err) < 0) {
        traza_err_prefix(err, "%s: ", path);
        free(path);
        tz_sqlite_t_close(t);
        return -1;
    }
    if (sqlite3_step(m) == SQLITE_ROW)
        t->max_duration = sqlite3_column_int64(m, 0);
    sqlite3_finalize(m);
    if (tz_sqlite_packed_attach(t->db, &t->packed, err) < 0) {
        traza_err_prefix(err, "%s: ", path);
        free(path);
        tz_sqlite_t_close(t);
        return -1;
    }
    free(path);
    if (tz_sql_prepare(t->db, "SELECT ts, type, producer FROM event WHERE id=?", &t->row_at, err) < 0) {
        tz_sqlite_t_close(t);
        return -1;
    }
    *out = t;
    return 0;
}

void tz_sqlite_t_close(tz_tstate *t)
{
    if (!t)
        return;
    sqlite3_finalize(t->row_at);
    tz_sqlite_overview_free(t);
    sqlite3_close(t->db);
    free(t);
}

int64_t tz_sqlite_t_max_duration(tz_tstate *t) { return t->max_duration; }

int tz_sqlite_t_storage(tz_tstate *t, traza_trace_storage *out, traza_err *err)
{
    sqlite3_stmt *st;
    if (tz_sql_prepare(t->db, "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()", &st, err) < 0)
        return -1;
    int rc = sqlite3_step(st);
    out->bytes = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    out->packed = t->packed;
    return rc == SQLITE_ROW ? 0 : tz_sql_fail(t->db, "reading the store's size", err);
}

int tz_sqlite_t_load_model(tz_tstate *t, tz_model *m, traza_err *err)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    memset(m, 0, sizeof *m);
    if (tz_sql_prepare(t->db, "SELECT id, parent, name, type FROM producer ORDER BY id", &st, err) < 0)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (TZ_GROW(m->producers, cap, m->nproducers + 1) < 0)
            goto oom;
        traza_producer *p = &m->producers[m->nproducers++];
        p->id = sqlite3_column_int(st, 0);
        p->parent = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 1);
        p->name = tz_model_str(m, (const char *)sqlite3_column_text(st, 2));
        p->type = tz_model_str(m, (const char *)sqlite3_column_text(st, 3));
        if (!p->name)
            goto oom;
    }
    sqlite3_finalize(st);
    cap = 0;
    if (tz_sql_prepare(t->db, "SELECT id, name, category, color FROM event_type ORDER BY id", &st, err) < 0)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (TZ_GROW(m->types, cap, m->ntypes + 1) < 0)
            goto oom;
        traza_event_type *ty = &m->types[m->ntypes++];
        ty->id = sqlite3_column_int(st, 0);
        ty->name = tz_model_str(m, (const char *)sqlite3_column_text(st, 1));
        ty->category = (traza_category)sqlite3_column_int(st, 2);
        ty->color = tz_model_str(m, (const char *)sqlite3_column_text(st, 3));
        if (!ty->name || (unsigned)ty->category >= TRAZA_NCATEGORIES)
            goto bad;
    }
    sqlite3_finalize(st);
    cap = 0;
    if (tz_sql_prepare(t->db, "SELECT id, type, name, ptype FROM param_def ORDER BY id", &st, err) < 0)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (TZ_GROW(m->defs, cap, m->ndefs + 1) < 0)
            goto oom;
        traza_param_def *d = &m->defs[m->ndefs++];
        d->id = sqlite3_column_int(st, 0);
        d->type_id = sqlite3_column_int(st, 1);
        d->name = tz_model_str(m, (const char *)sqlite3_column_text(st, 2));
        d->ptype = (traza_ptype)sqlite3_column_int(st, 3);
        if (!d->name || (unsigned)d->ptype > TRAZA_PT_HEX)
            goto bad;
    }
    sqlite3_finalize(st);
    /* a store written before param_const existed has none */
    if (sqlite3_prepare_v2(t->db, "SELECT def, value FROM param_const ORDER BY def", -1, &st, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        traza_value v = {TRAZA_PT_INT, 0, 0, NULL};
        switch (sqlite3_column_type(st, 1)) {
        case SQLITE_INTEGER: v.i = sqlite3_column_int64(st, 1); break;
        case SQLITE_FLOAT: v.kind = TRAZA_PT_DOUBLE; v.d = sqlite3_column_double(st, 1); break;
        default: v.kind = TRAZA_PT_STRING; v.s = (const char *)sqlite3_column_text(st, 1); break;
        }
        if (tz_model_set_const(m, sqlite3_column_int(st, 0), &v, err) < 0) {
            sqlite3_finalize(st);
            return -1;
        }
    }
    sqlite3_finalize(st);
    return 0;
oom:
    sqlite3_finalize(st);
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory loading the trace model");
bad:
    sqlite3_finalize(st);
    return traza_err_set(err, TRAZA_E_FORMAT, "the trace store holds an invalid model row");
}

/* The id range the time bounds allow (one batch of binary searches). */
static int id_range(tz_tstate *t, const traza_filter *f, int64_t *lo, int64_t *hi, traza_err *err)
{
    int64_t x[2], id[2];
    size_t n = 0;
    *lo = 1;
    *hi = t->nevents;
    if (f->has_from) {
        int64_t from = f->from;
        if (f->overlap && t->max_duration > 0)
            from = (from > INT64_MIN + t->max_duration) ? from - t->max_duration : INT64_MIN;
        x[n++] = from;
    }
    int want_to = f->has_to && f->to != INT64_MAX;
    if (want_to)
        x[n++] = f->to + 1;
    if (n && tz_sqlite_first_ids(t, x, n, id, err) < 0)
        return -1;
    if (f->has_from)
        *lo = id[0];
    if (want_to)
        *hi = id[n - 1] - 1;
    return 0;
}

/* SQLite binds every value: ?1 lo, ?2 hi, ?3 overlap start, ?4... the conditions. */
static void put_slot(tz_buf *b, int slot, int64_t v)
{
    (void)v;
    tz_buf_printf(b, "?%d", slot);
}

static void all_types(tz_buf *b, void *ctx)
{
    (void)ctx;
    /* Lets SQLite use the (type, producer) index for producer lookups. */
    tz_buf_puts(b, " AND type IN (SELECT id FROM event_type)");
}

static int cond(tz_buf *b, const struct tz_bcond *c, int slot, void *ctx)
{
    (void)ctx;
    tz_buf_printf(b, " AND p.value %s ?%d", tz_where_cmp(c->op), slot);
    return 0;
}

static int64_t count(const char *sql, const struct tz_bcond *c, void *ctx)
{
    tz_tstate *t = ctx;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (c->numeric)
        sqlite3_bind_double(st, 1, c->num);
    else
        sqlite3_bind_text(st, 1, c->str, -1, SQLITE_STATIC);
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return n;
}

static const tz_where_style where_style = {put_slot, all_types, cond, count};

/* WHERE clause shared by queries and counts; binds come after in order: conds, set. */
static int build_where(tz_tstate *t, const tz_bfilter *bf, tz_buf *b, int64_t *lo, int64_t *hi, traza_err *err)
{
    if (id_range(t, bf->f, lo, hi, err) < 0)
        return -1;
    return tz_where_build(b, bf, *lo, *hi, &where_style, t);
}

static void bind_where(const tz_bfilter *bf, sqlite3_stmt *st, int64_t lo, int64_t hi)
{
    sqlite3_bind_int64(st, 1, lo);
    sqlite3_bind_int64(st, 2, hi);
    if (bf->f->overlap && bf->f->has_from)
        sqlite3_bind_int64(st, 3, bf->f->from);
    for (size_t i = 0; i < bf->nconds; i++) {
        const struct tz_bcond *c = &bf->conds[i];
        if (c->numeric)
            sqlite3_bind_double(st, TZ_WHERE_COND_SLOT(i), c->num);
        else
            sqlite3_bind_text(st, TZ_WHERE_COND_SLOT(i), c->str, -1, SQLITE_STATIC);
    }
}

static int q_open(tz_tstate *t, const tz_bfilter *bf, int narrow, tz_qstate **out, traza_err *err)
{
    tz_qstate *q = calloc(1, sizeof *q);
    if (!q)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    q->t = t;
    q->with_params = narrow ? 0 : bf->f->with_params;
    q->stop = bf->f->stop && bf->f->stop->fn ? bf->f->stop : NULL;
    tz_buf_init(&q->strs);
    tz_buf sql;
    tz_buf_init(&sql);
    tz_buf_puts(&sql, narrow ? "SELECT id, ts, coalesce(end_ts, ts), type, producer FROM event"
                             : "SELECT id, ts, type, producer, end_ts, end_producer, level, value, cpu FROM event");
    int64_t lo, hi;
    if (build_where(t, bf, &sql, &lo, &hi, err) < 0) {
        tz_buf_free(&sql);
        free(q);
        return -1;
    }
    int desc = bf->f->order == TRAZA_ORDER_TIME_DESC;
    int64_t offset = bf->offset;
    if (offset > 0 && tz_where_id_range_only(bf)) {
        /* rows are consecutive ids: skip them by arithmetic, not by stepping */
        if (desc)
            hi = hi - offset < lo ? lo - 1 : hi - offset;
        else
            lo = lo + offset > hi ? hi + 1 : lo + offset;
        offset = 0;
    }
    tz_buf_printf(&sql, " ORDER BY id %s", desc ? "DESC" : "ASC");
    if (bf->limit > 0 || offset > 0)
        tz_buf_printf(&sql, " LIMIT %lld OFFSET %lld", bf->limit > 0 ? (long long)bf->limit : -1LL, (long long)offset);
    if (sql.oom) {
        tz_buf_free(&sql);
        free(q);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    int rc = tz_sql_prepare(t->db, sql.s, &q->st, err);
    tz_buf_free(&sql);
    if (rc < 0 || (q->with_params && tz_sql_prepare(t->db, "SELECT def, value FROM param WHERE event=?", &q->params, err) < 0)) {
        tz_sqlite_q_close(q);
        return -1;
    }
    bind_where(bf, q->st, lo, hi);
    *out = q;
    return 0;
}

int tz_sqlite_q_open(tz_tstate *t, const tz_bfilter *bf, tz_qstate **out, traza_err *err)
{
    return q_open(t, bf, 0, out, err);
}

int tz_sqlite_s_open(tz_tstate *t, const tz_bfilter *bf, tz_qstate **out, traza_err *err)
{
    return q_open(t, bf, 1, out, err);
}

int64_t tz_sqlite_s_next(tz_qstate *q, size_t max, int64_t *id, int64_t *ts, int64_t *end, int32_t *type, int32_t *producer,
                         traza_err *err)
{
    sqlite3_stmt *st = q->st;
    size_t n = 0;
    while (n < max && !q->done) {
        int rc = step(q, err);
        if (rc == SQLITE_DONE) {
            q->done = 1; /* stepping again would rerun the query */
            break;
        }
        if (rc < 0 && n > 0 && q->stopped)
            break; /* the rows read come out first; the stop repeats on the next call */
        if (rc < 0)
            return -1;
        id[n] = sqlite3_column_int64(st, 0);
        ts[n] = sqlite3_column_int64(st, 1);
        end[n] = sqlite3_column_int64(st, 2);
        type[n] = sqlite3_column_int(st, 3);
        producer[n] = sqlite3_column_int(st, 4);
        n++;
    }
    return (int64_t)n;
}

static int load_params(tz_qstate *q, traza_event *ev, traza_err *err)
{
    q->npv = 0;
    tz_buf_reset(&q->strs);
    sqlite3_bind_int64(q->params, 1, ev->id);
    /* Strings are gathered first, pointers fixed after (the buffer may move). */
    size_t offs[256];
    int rc;
    while ((rc = sqlite3_step(q->params)) == SQLITE_ROW) {
        if (TZ_GROW(q->pv, q->cappv, q->npv + 1) < 0) {
            sqlite3_reset(q->params);
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        }
        traza_param *p = &q->pv[q->npv];
        memset(p, 0, sizeof *p);
        p->def = sqlite3_column_int(q->params, 0);
        switch (sqlite3_column_type(q->params, 1)) {
        case SQLITE_INTEGER: p->v.kind = TRAZA_PT_INT; p->v.i = sqlite3_column_int64(q->params, 1); break;
        case SQLITE_FLOAT: p->v.kind = TRAZA_PT_DOUBLE; p->v.d = sqlite3_column_double(q->params, 1); break;
        default: {
            p->v.kind = TRAZA_PT_STRING;
            const unsigned char *s = sqlite3_column_text(q->params, 1);
            int len = sqlite3_column_bytes(q->params, 1);
            if (q->npv < 256)
                offs[q->npv] = q->strs.len;
            tz_buf_put(&q->strs, s ? (const char *)s : "", (size_t)len);
            tz_buf_putc(&q->strs, '\0');
        }
        }
        q->npv++;
    }
    sqlite3_reset(q->params);
    if (rc != SQLITE_DONE)
        return tz_sql_fail(q->t->db, "reading parameters", err);
    if (q->strs.oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (q->npv > 256)
        q->npv = 256; /* more than 256 parameters on one event: keep the first 256 */
    for (size_t i = 0; i < q->npv; i++)
        if (q->pv[i].v.kind == TRAZA_PT_STRING)
            q->pv[i].v.s = q->strs.s + offs[i];
    ev->params = q->pv;
    ev->nparams = (uint32_t)q->npv;
    return 0;
}

int tz_sqlite_q_next(tz_qstate *q, traza_event *ev, traza_err *err)
{
    int rc = step(q, err);
    if (rc == SQLITE_DONE)
        return 0;
    if (rc < 0)
        return -1;
    sqlite3_stmt *st = q->st;
    memset(ev, 0, sizeof *ev);
    ev->id = sqlite3_column_int64(st, 0);
    ev->ts = sqlite3_column_int64(st, 1);
    ev->type = sqlite3_column_int(st, 2);
    ev->producer = sqlite3_column_int(st, 3);
    if (sqlite3_column_type(st, 4) != SQLITE_NULL) { ev->end_ts = sqlite3_column_int64(st, 4); ev->has |= TRAZA_HAS_END; }
    if (sqlite3_column_type(st, 5) != SQLITE_NULL) { ev->end_producer = sqlite3_column_int(st, 5); ev->has |= TRAZA_HAS_END_PRODUCER; }
    if (sqlite3_column_type(st, 6) != SQLITE_NULL) { ev->level = sqlite3_column_int(st, 6); ev->has |= TRAZA_HAS_LEVEL; }
    if (sqlite3_column_type(st, 7) != SQLITE_NULL) { ev->value = sqlite3_column_double(st, 7); ev->has |= TRAZA_HAS_VALUE; }
    if (sqlite3_column_type(st, 8) != SQLITE_NULL) { ev->cpu = sqlite3_column_int(st, 8); ev->has |= TRAZA_HAS_CPU; }
    if (q->with_params && load_params(q, ev, err) < 0)
        return -1;
    return 1;
}

void tz_sqlite_q_close(tz_qstate *q)
{
    if (!q)
        return;
    sqlite3_finalize(q->st);
    sqlite3_finalize(q->params);
    free(q->pv);
    tz_buf_free(&q->strs);
    free(q);
}

int64_t tz_sqlite_q_count(tz_tstate *t, const tz_bfilter *bf, traza_err *err)
{
    const traza_filter *f = bf->f;
    int64_t lo, hi;
    if (tz_where_id_range_only(bf)) {
        if (id_range(t, f, &lo, &hi, err) < 0)
            return -1;
        return hi >= lo ? hi - lo + 1 : 0;
    }
    if (id_range(t, f, &lo, &hi, err) < 0)
        return -1;
    tz_buf sql;
    tz_buf_init(&sql);
    if (tz_count_sql(&sql, bf, lo, hi, &where_style, t) < 0) {
        tz_buf_free(&sql);
        return -1;
    }
    if (sql.oom) {
        tz_buf_free(&sql);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    sqlite3_stmt *st;
    int rc = tz_sql_prepare(t->db, sql.s, &st, err);
    tz_buf_free(&sql);
    if (rc < 0)
        return -1;
    bind_where(bf, st, lo, hi);
    int64_t n = -1;
    const traza_stop *stop = f->stop && f->stop->fn ? f->stop : NULL;
    if (stop)
        sqlite3_progress_handler(t->db, 1000, stop_progress, (void *)stop);
    rc = sqlite3_step(st);
    if (stop)
        sqlite3_progress_handler(t->db, 0, NULL, NULL);
    if (rc == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_INTERRUPT && stop)
        traza_err_set(err, TRAZA_E_CANCELLED, "the count was stopped");
    else
        tz_sql_fail(t->db, "counting events", err);
    sqlite3_finalize(st);
    return n;
}
