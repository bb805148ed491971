/* PostgreSQL backend: opening a trace and running filtered queries.
 *
 * Events have id = rank in time order, so a time window is an id range found by a
 * binary search on the primary key (O(log n) index probes, no ts index). Queries run
 * as server-side cursors fetched in batches; several may be open at once on the same
 * trace (they share the trace connection's transaction, which ends with the last). */
#include "store/pg_internal.h"
#include "store/sql_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 4096

struct tz_qstate {
    tz_tstate *t;
    char name[24];        /* cursor name */
    int with_params;
    PGresult *res;        /* current batch */
    int row, nrows;
    int done;             /* the cursor is exhausted */
    int counted;          /* counted in t->ncursors */
    int declared;         /* DECLARE succeeded */
    traza_param *pv;
    size_t npv, cappv;
    size_t *offs;         /* string offsets in strs, per parameter */
    size_t capoffs;
    tz_buf strs;
};

int tz_pg_t_open(tz_backend *b, int64_t id, int write, tz_tstate **out, traza_err *err)
{
    (void)write;
    tz_pg *s = (tz_pg *)b;
    char ids[24];
    snprintf(ids, sizeof ids, "%lld", (long long)id);
    const char *v[1] = {ids};
    PGresult *r = tz_pg_query(s->cat, "SELECT file, events FROM traza.trace WHERE id=$1", 1, v, "reading the catalogue", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return traza_err_set(err, TRAZA_E_NOTFOUND, "trace %lld does not exist", (long long)id);
    }
    tz_tstate *t = calloc(1, sizeof *t);
    if (!t) {
        PQclear(r);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    t->ws = s;
    t->id = id;
    t->nevents = tz_pg_i64(r, 0, 1);
    char sql[128];
    snprintf(sql, sizeof sql, "SET search_path TO \"%s\"", PQgetvalue(r, 0, 0));
    PQclear(r);
    if (!(t->conn = tz_pg_connect(s->uri, err)) || tz_pg_exec(t->conn, sql, "opening the trace", err) < 0 ||
        !(r = tz_pg_query(t->conn, "SELECT value FROM meta WHERE key='max_duration'", 0, NULL, "opening the trace", err))) {
        tz_pg_t_close(t);
        return -1;
    }
    if (PQntuples(r) == 1)
        t->max_duration = tz_pg_i64(r, 0, 0);
    PQclear(r);
    *out = t;
    return 0;
}

void tz_pg_t_close(tz_tstate *t)
{
    if (!t)
        return;
    if (t->conn) {
        traza_err e;
        tz_pg_end_tx(t->conn, &e);
        PQfinish(t->conn);
    }
    free(t);
}

int64_t tz_pg_t_max_duration(tz_tstate *t) { return t->max_duration; }

/* A decoded text column kept by the model. */
static const char *model_str(tz_model *m, const PGresult *r, int row, int col)
{
    char *s = tz_pg_text_get(r, row, col);
    const char *k = s ? tz_model_str(m, s) : NULL;
    free(s);
    return k;
}

int tz_pg_t_load_model(tz_tstate *t, tz_model *m, traza_err *err)
{
    memset(m, 0, sizeof *m);
    PGresult *r = tz_pg_query(t->conn, "SELECT id, parent, name, type FROM producer ORDER BY id", 0, NULL, "loading the trace model", err);
    if (!r)
        return -1;
    int n = PQntuples(r);
    if (n && !(m->producers = calloc((size_t)n, sizeof *m->producers)))
        goto oom;
    for (int i = 0; i < n; i++) {
        traza_producer *p = &m->producers[m->nproducers++];
        p->id = (int32_t)tz_pg_i64(r, i, 0);
        p->parent = PQgetisnull(r, i, 1) ? -1 : (int32_t)tz_pg_i64(r, i, 1);
        p->name = model_str(m, r, i, 2);
        p->type = PQgetisnull(r, i, 3) ? NULL : model_str(m, r, i, 3);
        if (!p->name || (!PQgetisnull(r, i, 3) && !p->type))
            goto oom;
    }
    PQclear(r);
    if (!(r = tz_pg_query(t->conn, "SELECT id, name, category, color FROM event_type ORDER BY id", 0, NULL, "loading the trace model", err)))
        return -1;
    n = PQntuples(r);
    if (n && !(m->types = calloc((size_t)n, sizeof *m->types)))
        goto oom;
    for (int i = 0; i < n; i++) {
        traza_event_type *ty = &m->types[m->ntypes++];
        ty->id = (int32_t)tz_pg_i64(r, i, 0);
        ty->name = model_str(m, r, i, 1);
        ty->category = (traza_category)tz_pg_i64(r, i, 2);
        ty->color = PQgetisnull(r, i, 3) ? NULL : model_str(m, r, i, 3);
        if (!ty->name)
            goto oom;
        if ((unsigned)ty->category >= TRAZA_NCATEGORIES)
            goto bad;
    }
    t->ntypes = (int32_t)m->ntypes;
    PQclear(r);
    if (!(r = tz_pg_query(t->conn, "SELECT id, type, name, ptype FROM param_def ORDER BY id", 0, NULL, "loading the trace model", err)))
        return -1;
    n = PQntuples(r);
    if (n && !(m->defs = calloc((size_t)n, sizeof *m->defs)))
        goto oom;
    for (int i = 0; i < n; i++) {
        traza_param_def *d = &m->defs[m->ndefs++];
        d->id = (int32_t)tz_pg_i64(r, i, 0);
        d->type_id = (int32_t)tz_pg_i64(r, i, 1);
        d->name = model_str(m, r, i, 2);
        d->ptype = (traza_ptype)tz_pg_i64(r, i, 3);
        if (!d->name)
            goto oom;
        if ((unsigned)d->ptype > TRAZA_PT_HEX)
            goto bad;
    }
    PQclear(r);
    /* a store written before param_const existed has none */
    if (!(r = tz_pg_query(t->conn, "SELECT to_regclass('param_const') IS NOT NULL", 0, NULL, "loading the trace model", err)))
        return -1;
    int has_consts = PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    if (!has_consts)
        return 0;
    if (!(r = tz_pg_query(t->conn, "SELECT def, i, d, s FROM param_const ORDER BY def", 0, NULL, "loading the trace model", err)))
        return -1;
    n = PQntuples(r);
    for (int i = 0; i < n; i++) {
        traza_value v = {TRAZA_PT_INT, 0, 0, NULL};
        if (!PQgetisnull(r, i, 1)) {
            v.i = tz_pg_i64(r, i, 1);
        } else if (!PQgetisnull(r, i, 2)) {
            v.kind = TRAZA_PT_DOUBLE;
            v.d = strtod(PQgetvalue(r, i, 2), NULL);
        } else {
            v.kind = TRAZA_PT_STRING;
            if (!(v.s = model_str(m, r, i, 3)))
                goto oom;
        }
        if (tz_model_set_const(m, (int32_t)tz_pg_i64(r, i, 0), &v, err) < 0) {
            PQclear(r);
            return -1;
        }
    }
    PQclear(r);
    return 0;
oom:
    PQclear(r);
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory loading the trace model");
bad:
    PQclear(r);
    return traza_err_set(err, TRAZA_E_FORMAT, "the trace store holds an invalid model row");
}

/* The first id whose ts >= x (n + 1 if none): a 64-way search, each round one query
 * probing up to 64 ids, so about log64(n) round trips instead of log2(n). */
#define PROBES 64
static int64_t first_ge(tz_tstate *t, int64_t x)
{
    int64_t lo = 1, hi = t->nevents + 1; /* the answer is in [lo, hi] */
    char sql[PROBES * 22 + 96];
    while (lo < hi) {
        int64_t span = hi - lo, ids[PROBES];
        int k = 0;
        if (span <= PROBES) {
            for (int64_t i = lo; i < hi; i++)
                ids[k++] = i;
        } else {
            for (int i = 0; i < PROBES; i++)
                ids[k++] = lo + (int64_t)((double)span * i / PROBES);
        }
        int len = snprintf(sql, sizeof sql, "SELECT ts FROM event WHERE id IN (");
        for (int i = 0; i < k; i++)
            len += snprintf(sql + len, sizeof sql - (size_t)len, "%s%lld", i ? "," : "", (long long)ids[i]);
        snprintf(sql + len, sizeof sql - (size_t)len, ") ORDER BY id");
        PGresult *r = PQexec(t->conn, sql);
        if (!r || PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != k) {
            PQclear(r);
            return lo; /* unreachable with a consistent store; the query then reports */
        }
        int first = k; /* first probe with ts >= x */
        for (int i = 0; i < k && first == k; i++)
            if (tz_pg_i64(r, i, 0) >= x)
                first = i;
        PQclear(r);
        if (span <= PROBES)
            return first < k ? ids[first] : hi;
        if (first < k)
            hi = ids[first];
        if (first > 0)
            lo = ids[first - 1] + 1;
    }
    return lo;
}

static void id_range(tz_tstate *t, const traza_filter *f, int64_t *lo, int64_t *hi)
{
    *lo = 1;
    *hi = t->nevents;
    if (f->has_from) {
        int64_t from = f->from;
        if (f->overlap && t->max_duration > 0)
            from = (from > INT64_MIN + t->max_duration) ? from - t->max_duration : INT64_MIN;
        *lo = first_ge(t, from);
    }
    if (f->has_to)
        *hi = f->to == INT64_MAX ? t->nevents : first_ge(t, f->to + 1) - 1;
}

/* A float8 literal: COPY's spelling, quoted when it is a word (NaN, Infinity). */
static void put_num(tz_buf *b, double d)
{
    int word = !isfinite(d);
    if (word)
        tz_buf_putc(b, '\'');
    tz_pg_copy_double(b, d);
    tz_buf_puts(b, word ? "'::float8" : "::float8");
}

/* Values are inlined: numbers printed, strings quoted by libpq. */
static void put_value(tz_buf *b, int slot, int64_t v)
{
    (void)slot;
    tz_buf_printf(b, "%lld", (long long)v);
}

static void all_types(tz_buf *b, void *ctx)
{
    tz_tstate *t = ctx;
    if (t->ntypes <= 0)
        return;
    /* All types spelled out: lets the (type, producer) index serve producer lookups. */
    tz_buf_puts(b, " AND type IN (");
    for (int32_t i = 0; i < t->ntypes; i++)
        tz_buf_printf(b, "%s%d", i ? "," : "", i);
    tz_buf_putc(b, ')');
}

/* Parameters are typed columns (i, d, s); -1 when a string cannot be quoted. */
static int cond(tz_buf *b, const struct tz_bcond *c, int slot, void *ctx)
{
    tz_tstate *t = ctx;
    (void)slot;
    if (c->numeric) {
        tz_buf_printf(b, " AND coalesce(p.i::float8, p.d) %s ", tz_where_cmp(c->op));
        put_num(b, c->num);
        return 0;
    }
    tz_buf e;
    tz_buf_init(&e);
    tz_pg_text_enc(&e, c->str, strlen(c->str));
    tz_buf_putc(&e, '\0');
    char *lit = e.oom ? NULL : PQescapeLiteral(t->conn, e.s, e.len - 1);
    tz_buf_free(&e);
    if (!lit)
        return -1;
    /* As in SQLite, a number sorts before any string. */
    int num_true = c->op == TRAZA_NE || c->op == TRAZA_LT || c->op == TRAZA_LE;
    tz_buf_printf(b, " AND (p.s %s %s COLLATE \"C\" OR (p.s IS NULL AND %s))", tz_where_cmp(c->op), lit, num_true ? "true" : "false");
    PQfreemem(lit);
    return 0;
}

static int64_t count(const char *sql, const struct tz_bcond *c, void *ctx)
{
    tz_tstate *t = ctx;
    (void)c; /* its value is written into sql */
    PGresult *r = PQexec(t->conn, sql);
    int64_t n = r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 ? tz_pg_i64(r, 0, 0) : -1;
    PQclear(r);
    return n;
}

static const tz_where_style where_style = {put_value, all_types, cond, count};

/* The WHERE clause of queries and counts. Returns -1 when a string cannot be quoted. */
static int build_where(tz_tstate *t, const tz_bfilter *bf, tz_buf *b)
{
    int64_t lo, hi;
    id_range(t, bf->f, &lo, &hi);
    return tz_where_build(b, bf, lo, hi, &where_style, t);
}

static int begin_read(tz_tstate *t, traza_err *err)
{
    if (t->in_tx && PQtransactionStatus(t->conn) == PQTRANS_INTRANS)
        return 0;
    if (PQtransactionStatus(t->conn) == PQTRANS_INERROR)
        PQclear(PQexec(t->conn, "ROLLBACK"));
    if (PQtransactionStatus(t->conn) == PQTRANS_IDLE && tz_pg_exec(t->conn, "BEGIN", "starting a query", err) < 0)
        return -1;
    t->in_tx = 1;
    return 0;
}

static void end_read(tz_tstate *t)
{
    if (t->ncursors > 0 || !t->in_tx)
        return;
    traza_err e;
    tz_pg_end_tx(t->conn, &e);
    t->in_tx = 0;
}

/* scan: the narrow query of s_open (id, ts, end or ts, type, producer; no params). */
static int q_open(tz_tstate *t, const tz_bfilter *bf, int scan, tz_qstate **out, traza_err *err)
{
    tz_qstate *q = calloc(1, sizeof *q);
    if (!q)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    q->t = t;
    q->with_params = scan ? 0 : bf->f->with_params;
    tz_buf_init(&q->strs);
    snprintf(q->name, sizeof q->name, "tzq%u", t->next_cursor++);
    const char *dir = bf->f->order == TRAZA_ORDER_TIME_DESC ? "DESC" : "ASC";
    tz_buf sql;
    tz_buf_init(&sql);
    tz_buf_printf(&sql, "DECLARE %s NO SCROLL CURSOR FOR ", q->name);
    if (q->with_params)
        tz_buf_puts(&sql, "SELECT e.id, e.ts, e.type, e.producer, e.end_ts, e.end_producer, e.level, e.value, e.cpu,"
                          " p.def, p.i, p.d, p.s FROM (");
    tz_buf_puts(&sql, scan ? "SELECT id::int8, ts::int8, coalesce(end_ts, ts)::int8, type::int4, producer::int4 FROM event"
                           : "SELECT id, ts, type, producer, end_ts, end_producer, level, value, cpu FROM event");
    int rc = build_where(t, bf, &sql);
    tz_buf_printf(&sql, " ORDER BY id %s", dir);
    if (bf->limit > 0)
        tz_buf_printf(&sql, " LIMIT %lld", (long long)bf->limit);
    if (bf->offset > 0)
        tz_buf_printf(&sql, " OFFSET %lld", (long long)bf->offset);
    if (q->with_params)
        tz_buf_printf(&sql, ") e LEFT JOIN param p ON p.event = e.id ORDER BY e.id %s, p.def", dir);
    if (rc < 0 || sql.oom) {
        tz_buf_free(&sql);
        tz_pg_q_close(q);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    if (begin_read(t, err) < 0) {
        tz_buf_free(&sql);
        tz_pg_q_close(q);
        return -1;
    }
    t->ncursors++;
    q->counted = 1;
    rc = tz_pg_exec(t->conn, sql.s, "querying events", err);
    tz_buf_free(&sql);
    if (rc < 0) {
        tz_pg_q_close(q);
        return -1;
    }
    q->declared = 1;
    *out = q;
    return 0;
}

int tz_pg_q_open(tz_tstate *t, const tz_bfilter *bf, tz_qstate **out, traza_err *err)
{
    return q_open(t, bf, 0, out, err);
}

int tz_pg_s_open(tz_tstate *t, const tz_bfilter *bf, tz_qstate **out, traza_err *err)
{
    return q_open(t, bf, 1, out, err);
}

/* Scans fetch SCAN_BATCH rows at a time in binary (network byte order integers):
 * no text formatting on the server, no parsing here. */
#define SCAN_BATCH 32768

static uint64_t be64(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | u[i];
    return v;
}

static uint32_t be32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

int64_t tz_pg_s_next(tz_qstate *q, size_t max, int64_t *id, int64_t *ts, int64_t *end, int32_t *type, int32_t *producer,
                     traza_err *err)
{
    size_t n = 0;
    while (n < max) {
        if (!q->res || q->row >= q->nrows) {
            if (q->done)
                break;
            PQclear(q->res);
            char sql[64];
            snprintf(sql, sizeof sql, "FETCH %d FROM %s", SCAN_BATCH, q->name);
            q->res = PQexecParams(q->t->conn, sql, 0, NULL, NULL, NULL, NULL, 1);
            if (!q->res || PQresultStatus(q->res) != PGRES_TUPLES_OK) {
                tz_pg_fail(q->t->conn, q->res, "reading events", err);
                PQclear(q->res);
                q->res = NULL;
                return -1;
            }
            q->row = 0;
            q->nrows = PQntuples(q->res);
            if (q->nrows < SCAN_BATCH)
                q->done = 1;
            if (q->nrows == 0)
                break;
            if (PQnfields(q->res) != 5)
                return traza_err_set(err, TRAZA_E_FORMAT, "reading events: expected 5 columns, the server sent %d", PQnfields(q->res));
        }
        PGresult *r = q->res;
        for (; n < max && q->row < q->nrows; q->row++, n++) {
            int i = q->row;
            if (PQgetlength(r, i, 0) != 8 || PQgetlength(r, i, 1) != 8 || PQgetlength(r, i, 2) != 8 || PQgetlength(r, i, 3) != 4 ||
                PQgetlength(r, i, 4) != 4)
                return traza_err_set(err, TRAZA_E_FORMAT, "reading events: row %d of a batch has unexpected binary field sizes", i);
            id[n] = (int64_t)be64(PQgetvalue(r, i, 0));
            ts[n] = (int64_t)be64(PQgetvalue(r, i, 1));
            end[n] = (int64_t)be64(PQgetvalue(r, i, 2));
            type[n] = (int32_t)be32(PQgetvalue(r, i, 3));
            producer[n] = (int32_t)be32(PQgetvalue(r, i, 4));
        }
    }
    return (int64_t)n;
}

/* Makes q->row point at a row; 0 at the end, -1 on error. */
static int ensure_row(tz_qstate *q, traza_err *err)
{
    if (q->res && q->row < q->nrows)
        return 1;
    if (q->done)
        return 0;
    PQclear(q->res);
    q->res = NULL;
    char sql[64];
    snprintf(sql, sizeof sql, "FETCH %d FROM %s", BATCH, q->name);
    if (!(q->res = tz_pg_query(q->t->conn, sql, 0, NULL, "reading events", err)))
        return -1;
    q->row = 0;
    q->nrows = PQntuples(q->res);
    if (q->nrows < BATCH)
        q->done = 1;
    return q->nrows > 0;
}

static int add_param(tz_qstate *q, PGresult *r, int row, traza_err *err)
{
    if (TZ_GROW(q->pv, q->cappv, q->npv + 1) < 0 || TZ_GROW(q->offs, q->capoffs, q->npv + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    traza_param *p = &q->pv[q->npv];
    memset(p, 0, sizeof *p);
    p->def = (int32_t)tz_pg_i64(r, row, 9);
    if (!PQgetisnull(r, row, 10)) {
        p->v.kind = TRAZA_PT_INT;
        p->v.i = tz_pg_i64(r, row, 10);
    } else if (!PQgetisnull(r, row, 11)) {
        p->v.kind = TRAZA_PT_DOUBLE;
        p->v.d = strtod(PQgetvalue(r, row, 11), NULL);
    } else {
        p->v.kind = TRAZA_PT_STRING;
        q->offs[q->npv] = q->strs.len;
        tz_pg_text_dec(&q->strs, PQgetvalue(r, row, 12), (size_t)PQgetlength(r, row, 12));
        tz_buf_putc(&q->strs, '\0');
    }
    q->npv++;
    return 0;
}

int tz_pg_q_next(tz_qstate *q, traza_event *ev, traza_err *err)
{
    int rc = ensure_row(q, err);
    if (rc <= 0)
        return rc;
    PGresult *r = q->res;
    int i = q->row;
    memset(ev, 0, sizeof *ev);
    ev->id = tz_pg_i64(r, i, 0);
    ev->ts = tz_pg_i64(r, i, 1);
    ev->type = (int32_t)tz_pg_i64(r, i, 2);
    ev->producer = (int32_t)tz_pg_i64(r, i, 3);
    if (!PQgetisnull(r, i, 4)) { ev->end_ts = tz_pg_i64(r, i, 4); ev->has |= TRAZA_HAS_END; }
    if (!PQgetisnull(r, i, 5)) { ev->end_producer = (int32_t)tz_pg_i64(r, i, 5); ev->has |= TRAZA_HAS_END_PRODUCER; }
    if (!PQgetisnull(r, i, 6)) { ev->level = (int32_t)tz_pg_i64(r, i, 6); ev->has |= TRAZA_HAS_LEVEL; }
    if (!PQgetisnull(r, i, 7)) { ev->value = strtod(PQgetvalue(r, i, 7), NULL); ev->has |= TRAZA_HAS_VALUE; }
    if (!PQgetisnull(r, i, 8)) { ev->cpu = (int32_t)tz_pg_i64(r, i, 8); ev->has |= TRAZA_HAS_CPU; }
    q->row++;
    if (!q->with_params)
        return 1;
    /* One row per parameter (or one row with a NULL def): gather the event's rows. */
    q->npv = 0;
    tz_buf_reset(&q->strs);
    if (!PQgetisnull(r, i, 9) && add_param(q, r, i, err) < 0)
        return -1;
    for (;;) {
        rc = ensure_row(q, err);
        if (rc < 0)
            return -1;
        if (rc == 0 || tz_pg_i64(q->res, q->row, 0) != ev->id)
            break;
        if (add_param(q, q->res, q->row, err) < 0)
            return -1;
        q->row++;
    }
    if (q->strs.oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t k = 0; k < q->npv; k++)
        if (q->pv[k].v.kind == TRAZA_PT_STRING)
            q->pv[k].v.s = q->strs.s + q->offs[k];
    ev->params = q->pv;
    ev->nparams = (uint32_t)q->npv;
    return 1;
}

void tz_pg_q_close(tz_qstate *q)
{
    if (!q)
        return;
    tz_tstate *t = q->t;
    PQclear(q->res);
    if (q->declared && PQtransactionStatus(t->conn) == PQTRANS_INTRANS) {
        char sql[64];
        snprintf(sql, sizeof sql, "CLOSE %s", q->name);
        PQclear(PQexec(t->conn, sql));
    }
    if (q->counted) {
        t->ncursors--;
        end_read(t);
    }
    free(q->pv);
    free(q->offs);
    tz_buf_free(&q->strs);
    free(q);
}

int64_t tz_pg_q_count(tz_tstate *t, const tz_bfilter *bf, traza_err *err)
{
    const traza_filter *f = bf->f;
    if (tz_where_id_range_only(bf)) {
        int64_t lo, hi;
        id_range(t, f, &lo, &hi);
        return hi >= lo ? hi - lo + 1 : 0;
    }
    int64_t lo, hi;
    id_range(t, f, &lo, &hi);
    tz_buf sql;
    tz_buf_init(&sql);
    if (tz_count_sql(&sql, bf, lo, hi, &where_style, t) < 0 || sql.oom) {
        tz_buf_free(&sql);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    PGresult *r = tz_pg_query(t->conn, sql.s, 0, NULL, "counting events", err);
    tz_buf_free(&sql);
    if (!r)
        return -1;
    int64_t n = tz_pg_i64(r, 0, 0);
    PQclear(r);
    return n;
}
