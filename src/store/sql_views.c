/* SQL sessions: the stable views over a trace (doc/store.md, "SQL views"), written
 * once for both backends, and the checks every statement passes before a backend
 * runs it read-only. */
#include "store/store_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct traza_sql {
    traza_trace *t;
};

/* The text and number of a parameter value: SQLite keeps one typed column, PostgreSQL
 * one column per kind (i integers, d doubles, s strings). */
static const char *param_text(int pg) { return pg ? "COALESCE(p.s, p.i::text, p.d::text)" : "CAST(p.value AS TEXT)"; }
static const char *param_num(int pg)
{
    return pg ? "COALESCE(p.i::double precision, p.d)" : "CASE WHEN typeof(p.value) IN ('integer','real') THEN p.value END";
}
static const char *param_typed(int pg, traza_ptype k)
{
    if (!pg)
        return "p.value";
    return k == TRAZA_PT_DOUBLE ? "p.d" : k == TRAZA_PT_STRING ? "p.s" : "p.i";
}

/* Columns of the events view, which the ev_<type> views start with too. */
static const char *const event_cols[] = {"id", "ts", "end_ts", "duration", "type", "category", "producer", "producer_path",
                                         "producer_id", "type_id", "end_producer_id", "cpu", "level", "value"};

static int taken_col(const char *name)
{
    for (size_t i = 0; i < sizeof event_cols / sizeof *event_cols; i++)
        if (strcasecmp(name, event_cols[i]) == 0)
            return 1;
    return 0;
}

/* One view per event type, "ev_<type name>", with a column per parameter (a
 * parameter named like an events column, or twice, is left to the params view). */
static void type_views(tz_buf *b, const traza_trace *t, int pg)
{
    const traza_event_type *types;
    const traza_param_def *defs;
    size_t nt = traza_trace_event_types(t, &types), nd = traza_trace_param_defs(t, &defs);
    for (size_t i = 0; i < nt; i++) {
        char vname[80];
        /* PostgreSQL cuts identifiers at 63 bytes: a longer name would clash */
        if (snprintf(vname, sizeof vname, "ev_%s", types[i].name) >= 63)
            continue;
        int dup = 0;
        for (size_t k = 0; k < i && !dup; k++)
            dup = strcasecmp(types[k].name, types[i].name) == 0;
        if (dup)
            continue;
        tz_buf_puts(b, "CREATE TEMP VIEW ");
        tz_buf_quoted(b, vname, '"');
        tz_buf_puts(b, " AS SELECT e.*");
        for (size_t d = 0; d < nd; d++) {
            if (defs[d].type_id != types[i].id || taken_col(defs[d].name) || strlen(defs[d].name) >= 63)
                continue;
            int seen = 0;
            for (size_t k = 0; k < d && !seen; k++)
                seen = defs[k].type_id == types[i].id && strcasecmp(defs[k].name, defs[d].name) == 0;
            if (seen)
                continue;
            if (traza_trace_param_const(t, defs[d].id)) /* one value for the type */
                tz_buf_printf(b, ", (SELECT %s FROM param_const p WHERE p.def = %d) AS ", param_typed(pg, defs[d].ptype), (int)defs[d].id);
            else
                tz_buf_printf(b, ", (SELECT %s FROM param p WHERE p.event = e.id AND p.def = %d) AS ", param_typed(pg, defs[d].ptype),
                              (int)defs[d].id);
            tz_buf_quoted(b, defs[d].name, '"');
        }
        tz_buf_printf(b, " FROM events e WHERE e.type_id = %d;\n", (int)types[i].id);
    }
}

static char *views_ddl(const traza_trace *t, int pg)
{
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "CREATE TEMP VIEW types AS SELECT id, name, CASE category");
    for (int k = 0; k < TRAZA_NCATEGORIES; k++)
        tz_buf_printf(&b, " WHEN %d THEN '%s'", k, traza_category_name((traza_category)k));
    tz_buf_puts(&b, " END AS category, color FROM event_type;\n");
    /* producers: a table, so that its paths are computed once and joined by key */
    tz_buf_puts(&b, "CREATE TEMP TABLE producers AS WITH RECURSIVE pp(id, path) AS ("
                    "SELECT id, name FROM producer WHERE parent IS NULL"
                    " UNION ALL SELECT c.id, pp.path || '/' || c.name FROM producer c JOIN pp ON c.parent = pp.id)"
                    " SELECT p.id, p.parent, p.name, pp.path, p.type FROM producer p JOIN pp ON pp.id = p.id;\n");
    tz_buf_puts(&b, pg ? "CREATE UNIQUE INDEX ON producers(id);\n" : "CREATE UNIQUE INDEX temp.producers_id ON producers(id);\n");
    /* LEFT JOINs on unique keys: both engines drop a join whose columns a query
     * does not use, so counting events reads the event table alone */
    tz_buf_puts(&b, "CREATE TEMP VIEW events AS SELECT e.id, e.ts, e.end_ts, e.end_ts - e.ts AS duration, t.name AS type,"
                    " t.category, pr.name AS producer, pr.path AS producer_path, e.producer AS producer_id, e.type AS type_id,"
                    " e.end_producer AS end_producer_id, e.cpu, e.level, e.value"
                    " FROM event e LEFT JOIN types t ON t.id = e.type LEFT JOIN producers pr ON pr.id = e.producer;\n");
    tz_buf_printf(&b,
                  "CREATE TEMP VIEW params AS SELECT p.event, t.name AS type, d.name, %s AS value, %s AS num"
                  " FROM param p JOIN param_def d ON d.id = p.def JOIN event_type t ON t.id = d.type",
                  param_text(pg), param_num(pg));
    if (t->model.consts) /* the values held once per type, on every event of the type */
        tz_buf_printf(&b,
                      " UNION ALL SELECT e.id, t.name, d.name, %s, %s FROM param_const p JOIN param_def d ON d.id = p.def"
                      " JOIN event_type t ON t.id = d.type JOIN event e ON e.type = d.type",
                      param_text(pg), param_num(pg));
    tz_buf_puts(&b, ";\n");
    tz_buf_puts(&b, "CREATE TEMP VIEW results AS SELECT id, name, CASE kind");
    for (int k = TRAZA_RES_EVENT_SET; k <= TRAZA_RES_PROCESSED_TRACE; k++)
        tz_buf_printf(&b, " WHEN %d THEN '%s'", k, traza_result_kind_name((traza_result_kind)k));
    tz_buf_puts(&b, " END AS kind, tool, params, created, size, target FROM result;\n"
                    "CREATE TEMP VIEW result_events AS SELECT result, event FROM result_event;\n"
                    "CREATE TEMP VIEW result_producers AS SELECT result, producer FROM result_producer;\n");
    type_views(&b, t, pg);
    return tz_buf_take(&b);
}

int tz_sql_row_init(tz_sql_row *r, size_t n, traza_err *err)
{
    r->n = n;
    r->v = calloc(n + 1, sizeof *r->v);
    r->k = calloc(n + 1, sizeof *r->k);
    if (r->v && r->k)
        return 0;
    tz_sql_row_free(r);
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
}

int tz_sql_row_emit(tz_sql_row *r, const traza_sql_sink *sink, int header, traza_err *err)
{
    int stop = header ? sink->columns && sink->columns(sink->ctx, r->n, r->v) : sink->row && sink->row(sink->ctx, r->n, r->v, r->k);
    return stop ? traza_err_set(err, TRAZA_E_CANCELLED, "the SQL statement was stopped by its reader") : 0;
}

void tz_sql_row_free(tz_sql_row *r)
{
    free(r->v);
    free(r->k);
    r->v = NULL;
    r->k = NULL;
}

traza_sql *traza_sql_open(traza_trace *t, traza_err *err)
{
    const tz_backend_ops *ops = t->ws->b->ops;
    int pg = strcmp(ops->name, "sqlite") != 0;
    char *ddl = views_ddl(t, pg);
    traza_sql *s = calloc(1, sizeof *s);
    if (!ddl || !s) {
        free(ddl);
        free(s);
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    int rc = ops->sql_setup(t->st, ddl, err);
    free(ddl);
    if (rc < 0) {
        free(s);
        traza_err_prefix(err, "creating the SQL views: ");
        return NULL;
    }
    s->t = t;
    return s;
}

void traza_sql_close(traza_sql *s) { free(s); }

/* Skips blanks and comments from p; returns where the next token starts. */
static const char *skip_blank(const char *p)
{
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else {
            return p;
        }
    }
}

long traza_sql_next_statement(const char *text, size_t *start, int *complete)
{
    const char *s = skip_blank(text + *start), *p = s;
    *complete = 0;
    while (*p) {
        if (*p == '\'' || *p == '"') {
            char q = *p++;
            while (*p && !(*p == q && p[1] != q))
                p += (*p == q) ? 2 : 1;
            if (*p)
                p++;
        } else if ((p[0] == '-' && p[1] == '-') || (p[0] == '/' && p[1] == '*')) {
            p = skip_blank(p);
        } else if (*p == ';') {
            *complete = 1;
            break;
        } else {
            p++;
        }
    }
    *start = (size_t)(s - text);
    if (p == s && !*complete)
        return -1;
    return (long)(p - s);
}

/* The statements that only read: their first word. The backends enforce it too
 * (SQLite's authorizer, PostgreSQL's read-only transaction) for what a first word
 * cannot tell, such as a WITH that deletes. */
static int reads_only(const char *stmt, char *word, size_t size)
{
    const char *p = skip_blank(stmt);
    size_t n = 0;
    while (isalpha((unsigned char)p[n]) && n + 1 < size) {
        word[n] = (char)toupper((unsigned char)p[n]);
        n++;
    }
    word[n] = '\0';
    static const char *const ok[] = {"SELECT", "WITH", "VALUES", "EXPLAIN"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (strcmp(word, ok[i]) == 0)
            return 1;
    return 0;
}

int traza_sql_exec(traza_sql *s, const char *stmt, const traza_stop *stop, int64_t timeout_ms, const traza_sql_sink *sink,
                   traza_err *err)
{
    size_t start = 0;
    int complete;
    long len = traza_sql_next_statement(stmt, &start, &complete);
    if (len <= 0)
        return traza_err_set(err, TRAZA_E_USAGE, "no SQL statement given");
    size_t after = start + (size_t)len + (size_t)complete;
    int more;
    if (traza_sql_next_statement(stmt, &after, &more) >= 0)
        return traza_err_set(err, TRAZA_E_USAGE, "one statement at a time: text follows the ';' at offset %zu",
                             start + (size_t)len);
    char word[16];
    if (!reads_only(stmt + start, word, sizeof word))
        return traza_err_set(err, TRAZA_E_USAGE,
                             "the SQL session is read-only: a statement starting with '%s' is refused"
                             " (SELECT, WITH, VALUES and EXPLAIN read the views)",
                             *word ? word : "?");
    char *one = tz_strndup(stmt + start, (size_t)len);
    if (!one)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    int rc = s->t->ws->b->ops->sql_run(s->t->st, one, stop, timeout_ms, sink, err);
    free(one);
    return rc;
}
