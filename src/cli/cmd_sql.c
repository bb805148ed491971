/* traza sql TRACE [STATEMENT] [--csv] [--json] [--budget DUR] */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char cmd_sql_usage[] =
    "usage: traza sql TRACE [STATEMENT] [--csv | --json] [--budget DUR]\n"
    "\n"
    "Runs read-only SQL over the views doc/store.md documents (a stable interface, the\n"
    "same on SQLite and PostgreSQL workspaces):\n"
    "  events            id, ts, end_ts, duration, type, category, producer,\n"
    "                    producer_path, producer_id, type_id, end_producer_id, cpu,\n"
    "                    level, value\n"
    "  params            event, type, name, value (text), num (number or NULL)\n"
    "  ev_<type>         the events columns of one event type, then one column per\n"
    "                    parameter of that type\n"
    "  producers         id, parent, name, path, type\n"
    "  types             id, name, category, color\n"
    "  results           id, name, kind, tool, params, created, size, target\n"
    "  result_events     result, event;  result_producers: result, producer\n"
    "Only SELECT, WITH, VALUES and EXPLAIN statements run; any statement that would\n"
    "write is refused. Without STATEMENT, statements (each ending with ';') are read\n"
    "from standard input: an interactive shell on a terminal (.quit ends it).\n"
    "\n"
    "  --csv          CSV with a header line (RFC 4180 quoting; NULL is empty)\n"
    "  --json         one array of objects per statement (NULL is null)\n"
    "  --budget DUR   stop a statement that runs longer (default 60s; 0: no limit)\n"
    "Without --csv or --json: an aligned table and its row count.\n";

enum { OUT_TABLE, OUT_CSV, OUT_JSON };

typedef struct sql_out {
    int mode;
    size_t ncols;
    char **names;
    char **cells;       /* table mode: the rows, ncols cells each (NULL for SQL NULL) */
    unsigned char *num; /* table mode: the cell is a number (right-aligned) */
    size_t nrows, cap;
    tz_buf line;
    int oom;
} sql_out;

static char *dup_or_null(const char *s, int *oom)
{
    if (!s)
        return NULL;
    char *d = tz_strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

static void csv_cell(tz_buf *b, const char *v)
{
    if (v && strpbrk(v, ",\"\r\n"))
        tz_buf_quoted(b, v, '"');
    else if (v)
        tz_buf_puts(b, v);
}

static int on_columns(void *ctx, size_t n, const char *const *names)
{
    sql_out *o = ctx;
    o->ncols = n;
    o->names = calloc(n + 1, sizeof *o->names);
    if (!o->names)
        return o->oom = 1;
    for (size_t i = 0; i < n; i++)
        o->names[i] = dup_or_null(names[i] ? names[i] : "?", &o->oom);
    if (o->mode == OUT_CSV) {
        tz_buf *b = &o->line;
        b->len = 0;
        for (size_t i = 0; i < n; i++) {
            if (i)
                tz_buf_putc(b, ',');
            csv_cell(b, names[i]);
        }
        tz_buf_puts(b, "\r\n");
        if (!b->oom)
            fwrite(b->s, 1, b->len, stdout);
    } else if (o->mode == OUT_JSON) {
        fputc('[', stdout);
    }
    return o->oom;
}

/* A JSON number for an SQL number, else NULL: NaN and infinities become strings. */
static int json_number(const char *v)
{
    char *end;
    double d = strtod(v, &end);
    return *v && !*end && isfinite(d);
}

static int on_row(void *ctx, size_t n, const char *const *v, const traza_sql_kind *k)
{
    sql_out *o = ctx;
    tz_buf *b = &o->line;
    b->len = 0;
    if (o->mode == OUT_CSV) {
        for (size_t i = 0; i < n; i++) {
            if (i)
                tz_buf_putc(b, ',');
            csv_cell(b, v[i]);
        }
        tz_buf_puts(b, "\r\n");
    } else if (o->mode == OUT_JSON) {
        tz_buf_puts(b, o->nrows ? ",{" : "{");
        for (size_t i = 0; i < n; i++) {
            if (i)
                tz_buf_putc(b, ',');
            tz_json_str(b, o->names[i]);
            tz_buf_putc(b, ':');
            if (!v[i])
                tz_buf_puts(b, "null");
            else if ((k[i] == TRAZA_SQL_INT || k[i] == TRAZA_SQL_REAL) && json_number(v[i]))
                tz_buf_puts(b, v[i]);
            else
                tz_json_str(b, v[i]);
        }
        tz_buf_putc(b, '}');
    } else {
        if (TZ_GROW(o->cells, o->cap, (o->nrows + 1) * n) < 0) {
            o->oom = 1;
            return 1;
        }
        size_t cap = o->cap;
        unsigned char *num = realloc(o->num, cap ? cap : 1);
        if (!num) {
            o->oom = 1;
            return 1;
        }
        o->num = num;
        for (size_t i = 0; i < n; i++) {
            o->cells[o->nrows * n + i] = dup_or_null(v[i], &o->oom);
            o->num[o->nrows * n + i] = k[i] == TRAZA_SQL_INT || k[i] == TRAZA_SQL_REAL;
        }
    }
    o->nrows++;
    if (b->oom)
        o->oom = 1;
    else if (b->len)
        fwrite(b->s, 1, b->len, stdout);
    return o->oom;
}

static void print_table(const sql_out *o)
{
    size_t n = o->ncols;
    size_t *w = calloc(n + 1, sizeof *w);
    if (!w)
        return;
    for (size_t i = 0; i < n; i++)
        w[i] = strlen(o->names[i] ? o->names[i] : "");
    for (size_t r = 0; r < o->nrows; r++)
        for (size_t i = 0; i < n; i++) {
            const char *c = o->cells[r * n + i];
            size_t l = strlen(c ? c : "NULL");
            if (l > w[i])
                w[i] = l;
        }
    for (size_t i = 0; i < n; i++)
        printf("%s%-*s", i ? "  " : "", i + 1 < n ? (int)w[i] : 0, o->names[i] ? o->names[i] : "");
    putchar('\n');
    for (size_t i = 0; i < n; i++) {
        printf("%s", i ? "  " : "");
        for (size_t k = 0; k < w[i]; k++)
            putchar('-');
    }
    putchar('\n');
    for (size_t r = 0; r < o->nrows; r++) {
        for (size_t i = 0; i < n; i++) {
            const char *c = o->cells[r * n + i];
            int right = o->num[r * n + i];
            int width = (right || i + 1 < n) ? (int)w[i] : 0;
            printf(right ? "%s%*s" : "%s%-*s", i ? "  " : "", width, c ? c : "NULL");
        }
        putchar('\n');
    }
    printf("(%zu row%s)\n", o->nrows, o->nrows == 1 ? "" : "s");
    free(w);
}

static void out_reset(sql_out *o)
{
    for (size_t i = 0; o->names && i < o->ncols; i++)
        free(o->names[i]);
    for (size_t i = 0; o->cells && i < o->nrows * o->ncols; i++)
        free(o->cells[i]);
    free(o->names);
    free(o->cells);
    free(o->num);
    int mode = o->mode;
    tz_buf line = o->line;
    memset(o, 0, sizeof *o);
    o->mode = mode;
    o->line = line;
}

typedef struct budget {
    int64_t deadline_ns; /* CLOCK_MONOTONIC; 0 = none */
} budget;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int budget_over(void *ctx, int stage)
{
    (void)stage;
    const budget *b = ctx;
    return b->deadline_ns && now_ns() > b->deadline_ns;
}

typedef struct sql_run {
    traza_sql *s;
    sql_out out;
    int64_t budget_ms;
    const char *budget_s;
} sql_run;

/* Runs one statement and prints its rows. EXIT_OK or the exit code of its error. */
static int run_one(sql_run *r, const char *stmt)
{
    budget bd = {r->budget_ms > 0 ? now_ns() + r->budget_ms * 1000000 : 0};
    traza_stop stop = {budget_over, &bd};
    traza_sql_sink sink = {on_columns, on_row, &r->out};
    traza_err err;
    traza_err_clear(&err);
    int rc = traza_sql_exec(r->s, stmt, &stop, r->budget_ms, &sink, &err);
    if (rc == 0 && r->out.oom)
        rc = traza_err_set(&err, TRAZA_E_NOMEM, "out of memory");
    if (rc == 0) {
        if (r->out.mode == OUT_TABLE)
            print_table(&r->out);
        else if (r->out.mode == OUT_JSON)
            fputs("]\n", stdout);
    } else if (r->out.mode == OUT_JSON && r->out.names) {
        fputs("]\n", stdout);
    }
    fflush(stdout);
    out_reset(&r->out);
    if (rc == 0)
        return EXIT_OK;
    if (err.code == TRAZA_E_CANCELLED && !r->out.oom) {
        fprintf(stderr, "traza sql: %s of %s (raise it with --budget; 0 for no limit)\n", err.msg, r->budget_s);
        return EXIT_FAIL;
    }
    return cli_fail(NULL, &err);
}

/* Reads statements from f: on a terminal with prompts, going on after an error;
 * else to the end, stopping at the first error. */
static int run_stream(sql_run *r, FILE *f, int interactive)
{
    tz_buf text;
    tz_buf_init(&text);
    char *line = NULL;
    size_t cap = 0;
    int rc = EXIT_OK;
    for (;;) {
        if (interactive) {
            fputs(text.len ? "   ...> " : "traza> ", stdout);
            fflush(stdout);
        }
        ssize_t got = getline(&line, &cap, f);
        if (got < 0)
            break;
        if (interactive && !text.len && line[0] == '.') {
            if (strncmp(line, ".quit", 5) == 0 || strncmp(line, ".exit", 5) == 0)
                break;
            fputs("statements end with ';'; .quit ends the shell; views: events, params, ev_<type>, producers,"
                  " types, results, result_events, result_producers\n",
                  stdout);
            continue;
        }
        tz_buf_puts(&text, line);
        if (text.oom) {
            rc = EXIT_FAIL;
            fprintf(stderr, "traza: out of memory\n");
            break;
        }
        size_t start = 0, done = 0;
        int complete;
        long len;
        while ((len = traza_sql_next_statement(text.s, &start, &complete)) >= 0 && complete) {
            text.s[start + (size_t)len] = '\0';
            int one = len ? run_one(r, text.s + start) : EXIT_OK;
            start += (size_t)len + 1;
            done = start;
            if (one != EXIT_OK) {
                rc = one;
                if (!interactive)
                    goto out;
            }
        }
        memmove(text.s, text.s + done, text.len - done + 1);
        text.len -= done;
        size_t rest = 0;
        if (traza_sql_next_statement(text.s, &rest, &complete) < 0)
            text.len = text.s[0] = '\0'; /* only blanks and comments: the next line starts afresh */
    }
    if (!interactive) { /* a last statement without ';' */
        size_t start = 0;
        int complete;
        if (text.s && traza_sql_next_statement(text.s, &start, &complete) > 0)
            rc = run_one(r, text.s + start);
    } else {
        putchar('\n');
    }
out:
    free(line);
    tz_buf_free(&text);
    return rc;
}

int cmd_sql(traza_cli *cli, int argc, char **argv)
{
    enum { O_CSV = OPT_FIRST_FREE, O_BUDGET };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"csv", no_argument, NULL, O_CSV},
        {"budget", required_argument, NULL, O_BUDGET},
        {NULL, 0, NULL, 0},
    };
    int c, csv = 0;
    const char *budget_s = "60s";
    while ((c = cli_getopt(cli, argc, argv, ":hqw:", longopts)) != -1) {
        if (c == O_CSV) {
            csv = 1;
            continue;
        }
        if (c == O_BUDGET) {
            budget_s = optarg;
            continue;
        }
        int r = cli_common_opt(cli, "sql", c);
        if (r == -1) return EXIT_OK;
        if (r <= 0) return EXIT_USAGE;
    }
    if (csv && cli->json)
        return cli_usage_error("sql", "--csv and --json go alone");
    if (optind >= argc)
        return cli_usage_error("sql", "expected a trace name");
    if (argc - optind > 2)
        return cli_usage_error("sql", "expected one STATEMENT (quote it), got %d arguments after the trace", argc - optind - 1);
    traza_err err;
    traza_err_clear(&err);
    int64_t budget_ms;
    if (traza_time_parse(budget_s, -3, &budget_ms, &err) < 0 || budget_ms < 0)
        return cli_usage_error("sql", "--budget expects a duration such as 500ms or 10s (0: no limit), got '%s'", budget_s);
    traza_trace *t = cli_trace(cli, argv[optind], TRAZA_OPEN_READ);
    if (!t)
        return EXIT_FAIL;
    sql_run r;
    memset(&r, 0, sizeof r);
    r.out.mode = csv ? OUT_CSV : cli->json ? OUT_JSON : OUT_TABLE;
    tz_buf_init(&r.out.line);
    r.budget_ms = budget_ms;
    r.budget_s = budget_s;
    int rc;
    if (!(r.s = traza_sql_open(t, &err)))
        rc = cli_fail(cli, &err);
    else if (optind + 1 < argc)
        rc = run_one(&r, argv[optind + 1]);
    else
        rc = run_stream(&r, stdin, isatty(0));
    traza_sql_close(r.s);
    tz_buf_free(&r.out.line);
    traza_trace_close(t);
    return rc;
}
