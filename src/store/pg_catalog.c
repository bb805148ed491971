/* PostgreSQL backend: connections, helpers and the workspace catalogue (schema traza).
 *
 * Atomicity: an import writes its schema t_<hex> and its catalogue rows in ONE
 * transaction (pg_writer.c). A failed, aborted or killed import is rolled back by the
 * server, so the catalogue and other traces never see it and nothing is left to sweep.
 * Removing a trace drops its schema and its catalogue rows in one transaction. */
#include "store/pg_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet_notice(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

/* libpq messages end with a newline; the first line is what a user needs. */
static void set_pg_msg(traza_err *err, traza_errcode code, const char *what, const char *msg)
{
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        n--;
    traza_err_set(err, code, "%s: %.*s", what, (int)n, msg);
}

/* The location as shown in messages: a password in it is replaced by "***". */
static void redact(const char *uri, char *buf, size_t size)
{
    snprintf(buf, size, "%s", uri);
    char *scheme = strstr(buf, "://");
    if (scheme) {
        char *auth = scheme + 3, *end = auth + strcspn(auth, "/?"), *at = NULL;
        for (char *p = auth; p < end; p++)
            if (*p == '@')
                at = p;
        char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (colon && at - colon > 1 && strlen(buf) + 4 < size) {
            memmove(colon + 4, at, strlen(at) + 1);
            memcpy(colon + 1, "***", 3);
        }
    }
    char *pw = strstr(buf, "password=");
    if (pw && strlen(buf) + 4 < size) {
        pw += 9;
        size_t n = strcspn(pw, "& ");
        memmove(pw + 3, pw + n, strlen(pw + n) + 1);
        memcpy(pw, "***", 3);
    }
}

PGconn *tz_pg_connect(const char *uri, traza_err *err)
{
    PGconn *c = PQconnectdb(uri);
    if (!c) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory connecting to PostgreSQL");
        return NULL;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        char loc[400], what[512];
        redact(uri, loc, sizeof loc);
        snprintf(what, sizeof what, "%s: cannot connect to PostgreSQL", loc);
        set_pg_msg(err, TRAZA_E_IO, what, PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeProcessor(c, quiet_notice, NULL);
    /* A backend must end soon after its client does (a traza killed mid-import), not
     * finish an index build for nobody: it checks every second, while a statement
     * runs, that the client is still connected (PostgreSQL 14 and later), and TCP
     * keepalives find a client host that vanished without closing its connection
     * within about a minute. */
    if (tz_pg_exec(c, "SET client_encoding TO 'UTF8'; SET client_min_messages TO warning; SET extra_float_digits TO 3;"
                      "SET tcp_keepalives_idle TO 30; SET tcp_keepalives_interval TO 10; SET tcp_keepalives_count TO 3;"
                      "SELECT set_config('client_connection_check_interval', '1000', false)"
                      " WHERE current_setting('server_version_num')::int >= 140000;",
                   "configuring the PostgreSQL session", err) < 0) {
        PQfinish(c);
        return NULL;
    }
    return c;
}

int tz_pg_fail(PGconn *c, const PGresult *r, const char *what, traza_err *err)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = r ? PQresultErrorMessage(r) : NULL;
    if (!msg || !*msg)
        msg = PQerrorMessage(c);
    traza_errcode code = TRAZA_E_IO;
    if (state && strcmp(state, "23505") == 0)
        code = TRAZA_E_EXISTS;
    else if (state && strncmp(state, "53", 2) == 0 && strcmp(state, "53200") == 0)
        code = TRAZA_E_NOMEM;
    else if (!r && PQstatus(c) == CONNECTION_OK && !*msg)
        code = TRAZA_E_NOMEM;
    set_pg_msg(err, code, what, *msg ? msg : "out of memory");
    return -1;
}

int tz_pg_exec(PGconn *c, const char *sql, const char *what, traza_err *err)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
        tz_pg_fail(c, r, what, err);
        PQclear(r);
        return -1;
    }
    PQclear(r);
    return 0;
}

PGresult *tz_pg_query(PGconn *c, const char *sql, int n, const char *const *vals, const char *what, traza_err *err)
{
    /* text parameters that are not valid UTF-8 are sent encoded (pg_text.c) */
    char *encv[16] = {0};
    const char *sendv[16];
    int enc = 0;
    for (int i = 0; i < n && n <= 16; i++) {
        sendv[i] = vals[i];
        if (vals[i] && tz_pg_text_needs_enc(vals[i], strlen(vals[i]))) {
            tz_buf b;
            tz_buf_init(&b);
            tz_pg_text_enc(&b, vals[i], strlen(vals[i]));
            if (!(encv[i] = tz_buf_take(&b))) {
                for (int k = 0; k < i; k++)
                    free(encv[k]);
                traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                return NULL;
            }
            sendv[i] = encv[i];
            enc = 1;
        }
    }
    PGresult *r = PQexecParams(c, sql, n, NULL, enc ? sendv : vals, NULL, NULL, 0);
    for (int i = 0; i < n && i < 16; i++)
        free(encv[i]);
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
        tz_pg_fail(c, r, what, err);
        PQclear(r);
        return NULL;
    }
    return r;
}

int tz_pg_copy(PGconn *c, const char *copy_sql, const char *data, size_t len, const char *what, traza_err *err)
{
    PGresult *r = PQexec(c, copy_sql);
    if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
        tz_pg_fail(c, r, what, err);
        PQclear(r);
        return -1;
    }
    PQclear(r);
    int ok = 1;
    size_t chunk = (size_t)1 << 20;
    for (size_t off = 0; ok && off < len; off += chunk) {
        size_t k = len - off < chunk ? len - off : chunk;
        ok = PQputCopyData(c, data + off, (int)k) == 1;
    }
    if (PQputCopyEnd(c, ok ? NULL : "traza: sending rows failed") != 1)
        ok = 0;
    int rc = ok ? 0 : -1;
    if (!ok)
        set_pg_msg(err, TRAZA_E_IO, what, PQerrorMessage(c));
    while ((r = PQgetResult(c))) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK && rc == 0)
            rc = tz_pg_fail(c, r, what, err);
        PQclear(r);
    }
    return rc;
}

void tz_pg_copy_str(tz_buf *b, const char *s)
{
    size_t n = strlen(s);
    tz_buf enc;
    enc.s = NULL;
    if (tz_pg_text_needs_enc(s, n)) {
        tz_buf_init(&enc);
        tz_pg_text_enc(&enc, s, n);
        tz_buf_putc(&enc, '\0');
        if (enc.oom) {
            b->oom = 1;
            tz_buf_free(&enc);
            return;
        }
        s = enc.s;
    }
    const char *run = s;
    for (; *s; s++) {
        const char *esc = NULL;
        switch (*s) {
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default: continue;
        }
        tz_buf_put(b, run, (size_t)(s - run));
        tz_buf_puts(b, esc);
        run = s + 1;
    }
    tz_buf_put(b, run, (size_t)(s - run));
    if (enc.s)
        tz_buf_free(&enc);
}

int tz_pg_end_tx(PGconn *c, traza_err *err)
{
    PGTransactionStatusType ts = PQtransactionStatus(c);
    if (ts == PQTRANS_INERROR) {
        PQclear(PQexec(c, "ROLLBACK"));
        return 0;
    }
    if (ts != PQTRANS_INTRANS)
        return 0;
    return tz_pg_exec(c, "COMMIT", "committing", err);
}

void tz_pg_copy_double(tz_buf *b, double d)
{
    if (isnan(d))
        tz_buf_puts(b, "NaN");
    else if (isinf(d))
        tz_buf_puts(b, d > 0 ? "Infinity" : "-Infinity");
    else
        tz_buf_printf(b, "%.17g", d);
}

int64_t tz_pg_i64(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col))
        return 0;
    return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static char *get_str(const PGresult *r, int row, int col)
{
    return tz_pg_text_get(r, row, col);
}

static const char *const catalog_schema =
    "BEGIN;"
    "SELECT pg_advisory_xact_lock(7626363214524917857);" /* serialises concurrent creations */
    "CREATE SCHEMA IF NOT EXISTS traza;"
    "CREATE TABLE IF NOT EXISTS traza.trace("
    " id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name text NOT NULL UNIQUE, alias text, format text,"
    " file text NOT NULL UNIQUE, time_unit integer NOT NULL, min_ts bigint, max_ts bigint, events bigint, producers bigint,"
    " event_types bigint, n_punctual bigint, n_state bigint, n_link bigint, n_variable bigint, created bigint);"
    "CREATE TABLE IF NOT EXISTS traza.trace_source(trace bigint NOT NULL, seq bigint NOT NULL, path text NOT NULL,"
    " PRIMARY KEY(trace, seq));"
    "CREATE TABLE IF NOT EXISTS traza.trace_param(trace bigint NOT NULL, key text NOT NULL, value text,"
    " PRIMARY KEY(trace, key));"
    "CREATE TABLE IF NOT EXISTS traza.trace_type(name text PRIMARY KEY, description text);"
    "CREATE TABLE IF NOT EXISTS traza.info(key text PRIMARY KEY, value text);"
    "INSERT INTO traza.info VALUES('schema_version', '1') ON CONFLICT DO NOTHING;"
    "COMMIT;";

static void pg_close(tz_backend *b)
{
    tz_pg *s = (tz_pg *)b;
    PQfinish(s->cat);
    free(s->uri);
    free(s);
}

static int pg_list(tz_backend *b, traza_trace_info **out, size_t *n, traza_err *err)
{
    tz_pg *s = (tz_pg *)b;
    PGresult *r = tz_pg_query(s->cat,
                              "SELECT id, name, alias, format, time_unit, min_ts, max_ts, events, producers, event_types,"
                              " n_punctual, n_state, n_link, n_variable, created FROM traza.trace ORDER BY id",
                              0, NULL, "reading the catalogue", err);
    if (!r)
        return -1;
    PGresult *src = tz_pg_query(s->cat, "SELECT trace, path FROM traza.trace_source ORDER BY trace, seq", 0, NULL,
                                "reading the catalogue", err);
    PGresult *par = src ? tz_pg_query(s->cat, "SELECT trace, key, value FROM traza.trace_param ORDER BY trace, key", 0, NULL,
                                      "reading the catalogue", err)
                        : NULL;
    if (!src || !par) {
        PQclear(r);
        PQclear(src);
        return -1;
    }
    int rows = PQntuples(r), nsrc = PQntuples(src), npar = PQntuples(par);
    traza_trace_info *arr = rows ? calloc((size_t)rows, sizeof *arr) : NULL;
    size_t cnt = 0;
    int si = 0, pi = 0;
    if (rows && !arr)
        goto oom;
    for (int i = 0; i < rows; i++) {
        traza_trace_info *t = &arr[cnt++];
        t->id = tz_pg_i64(r, i, 0);
        t->name = get_str(r, i, 1);
        t->alias = get_str(r, i, 2);
        t->format = get_str(r, i, 3);
        t->time_unit = (int)tz_pg_i64(r, i, 4);
        t->min_ts = tz_pg_i64(r, i, 5);
        t->max_ts = tz_pg_i64(r, i, 6);
        t->events = tz_pg_i64(r, i, 7);
        t->producers = tz_pg_i64(r, i, 8);
        t->event_types = tz_pg_i64(r, i, 9);
        for (int k = 0; k < 4; k++)
            t->categories[k] = tz_pg_i64(r, i, 10 + k);
        t->created = tz_pg_i64(r, i, 14);
        if (!t->name)
            goto oom;
        while (si < nsrc && tz_pg_i64(src, si, 0) < t->id)
            si++;
        size_t scap = 0;
        for (; si < nsrc && tz_pg_i64(src, si, 0) == t->id; si++) {
            if (TZ_GROW(t->sources, scap, t->nsources + 1) < 0 || !(t->sources[t->nsources] = get_str(src, si, 1)))
                goto oom;
            t->nsources++;
        }
        while (pi < npar && tz_pg_i64(par, pi, 0) < t->id)
            pi++;
        size_t pcap = 0;
        for (; pi < npar && tz_pg_i64(par, pi, 0) == t->id; pi++) {
            if (TZ_GROW(t->params, pcap, t->nparams + 1) < 0)
                goto oom;
            traza_kv *kv = &t->params[t->nparams++];
            kv->key = get_str(par, pi, 1);
            kv->value = get_str(par, pi, 2);
            if (!kv->key)
                goto oom;
        }
    }
    PQclear(r);
    PQclear(src);
    PQclear(par);
    *out = arr;
    *n = cnt;
    return 0;
oom:
    PQclear(r);
    PQclear(src);
    PQclear(par);
    traza_trace_info_array_free(arr, cnt);
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory reading the catalogue");
}

static int pg_name_taken(tz_backend *b, const char *name, traza_err *err)
{
    tz_pg *s = (tz_pg *)b;
    const char *v[1] = {name};
    PGresult *r = tz_pg_query(s->cat, "SELECT 1 FROM traza.trace WHERE name=$1", 1, v, "reading the catalogue", err);
    if (!r)
        return -1;
    int taken = PQntuples(r) > 0;
    PQclear(r);
    return taken;
}

static int pg_remove(tz_backend *b, int64_t id, traza_err *err)
{
    tz_pg *s = (tz_pg *)b;
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)id);
    const char *v[1] = {ids};
    if (tz_pg_exec(s->cat, "BEGIN", "removing a trace", err) < 0)
        return -1;
    PGresult *r = tz_pg_query(s->cat, "SELECT file FROM traza.trace WHERE id=$1 FOR UPDATE", 1, v, "removing a trace", err);
    if (!r)
        goto fail;
    if (PQntuples(r) == 0) {
        PQclear(r);
        traza_err_set(err, TRAZA_E_NOTFOUND, "trace %lld does not exist", (long long)id);
        goto fail;
    }
    char *sql = tz_asprintf("DELETE FROM traza.trace_source WHERE trace=%1$lld; DELETE FROM traza.trace_param WHERE trace=%1$lld;"
                            "DELETE FROM traza.trace WHERE id=%1$lld; DROP SCHEMA IF EXISTS \"%2$s\" CASCADE; COMMIT;",
                            (long long)id, PQgetvalue(r, 0, 0));
    PQclear(r);
    if (!sql) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto fail;
    }
    int rc = tz_pg_exec(s->cat, sql, "removing a trace", err);
    free(sql);
    if (rc < 0)
        goto fail;
    return 0;
fail:
    PQclear(PQexec(s->cat, "ROLLBACK"));
    return -1;
}

static int pg_rename(tz_backend *b, int64_t id, const char *name, traza_err *err)
{
    tz_pg *s = (tz_pg *)b;
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)id);
    const char *v[2] = {name, ids};
    PGresult *r = tz_pg_query(s->cat, "UPDATE traza.trace SET name=$1 WHERE id=$2", 2, v, "renaming a trace", err);
    if (!r)
        return -1;
    PQclear(r);
    return 0;
}

static int pg_meta_set(tz_backend *b, int64_t id, const traza_kv *kv, size_t n, traza_err *err)
{
    tz_pg *s = (tz_pg *)b;
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)id);
    if (tz_pg_exec(s->cat, "BEGIN", "changing a trace's metadata", err) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const char *v[3] = {ids, kv[i].key, kv[i].value};
        const char *sql;
        int nv = 3;
        if (strcmp(kv[i].key, "alias") == 0) {
            v[1] = kv[i].value;
            nv = 2;
            sql = "UPDATE traza.trace SET alias=$2 WHERE id=$1";
        } else if (kv[i].value) {
            sql = "INSERT INTO traza.trace_param(trace, key, value) VALUES($1, $2, $3)"
                  " ON CONFLICT (trace, key) DO UPDATE SET value=EXCLUDED.value";
        } else {
            nv = 2;
            sql = "DELETE FROM traza.trace_param WHERE trace=$1 AND key=$2";
        }
        PGresult *r = tz_pg_query(s->cat, sql, nv, v, "changing a trace's metadata", err);
        if (!r) {
            PQclear(PQexec(s->cat, "ROLLBACK"));
            return -1;
        }
        PQclear(r);
    }
    return tz_pg_end_tx(s->cat, err);
}

static const tz_backend_ops pg_ops = {
    .name = "postgresql",
    .close = pg_close,
    .list = pg_list,
    .remove = pg_remove,
    .rename = pg_rename,
    .name_taken = pg_name_taken,
    .meta_set = pg_meta_set,
    .sql_setup = tz_pg_sql_setup,
    .sql_run = tz_pg_sql_run,
    .w_begin = tz_pg_w_begin,
    .w_producer = tz_pg_w_producer,
    .w_event_type = tz_pg_w_event_type,
    .w_param_def = tz_pg_w_param_def,
    .w_param_const = tz_pg_w_param_const,
    .w_event = tz_pg_w_event,
    .w_commit = tz_pg_w_commit,
    .w_abort = tz_pg_w_abort,
    .t_open = tz_pg_t_open,
    .t_close = tz_pg_t_close,
    .t_load_model = tz_pg_t_load_model,
    .t_max_duration = tz_pg_t_max_duration,
    .q_open = tz_pg_q_open,
    .q_next = tz_pg_q_next,
    .q_close = tz_pg_q_close,
    .q_count = tz_pg_q_count,
    .r_save = tz_pg_r_save,
    .r_list = tz_pg_r_list,
    .r_delete = tz_pg_r_delete,
    .r_events = tz_pg_r_events,
    .r_producers = tz_pg_r_producers,
    .r_sets_of_event = tz_pg_r_sets_of_event,
    .r_group = tz_pg_r_group,
    .r_annotations = tz_pg_r_annotations,
    .s_open = tz_pg_s_open,
    .s_next = tz_pg_s_next,
};

tz_backend *tz_pg_open(traza_ctx *ctx, const char *uri, traza_err *err)
{
    if (tz_pq_load(err) < 0) /* libpq is opened on first use */
        return NULL;
    tz_pg *s = calloc(1, sizeof *s);
    if (!s || !(s->uri = tz_strdup(uri))) {
        free(s);
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    s->base.ops = &pg_ops;
    s->base.ctx = ctx;
    if (!(s->cat = tz_pg_connect(uri, err))) {
        free(s->uri);
        free(s);
        return NULL;
    }
    /* Creating the catalogue once; later opens only check it exists. */
    PGresult *r = tz_pg_query(s->cat, "SELECT to_regclass('traza.info') IS NOT NULL", 0, NULL, "reading the catalogue", err);
    int exists = r && PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
    PQclear(r);
    if (!r || (!exists && tz_pg_exec(s->cat, catalog_schema, "creating the catalogue", err) < 0)) {
        PQclear(PQexec(s->cat, "ROLLBACK"));
        char loc[400];
        redact(uri, loc, sizeof loc);
        traza_err_prefix(err, "%s: ", loc);
        pg_close(&s->base);
        return NULL;
    }
    return &s->base;
}
