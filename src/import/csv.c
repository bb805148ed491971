/* Generic CSV with a column map, so any line-oriented trace can come in without a
 * dedicated parser.
 *
 *   --map ts=0,end=1,type=4,producer=5,cpu=7,param:size:int=8
 *
 * Keys: ts (required), end, type (required), producer (required), end_producer, cpu,
 * value, level, category, param:NAME[:int|double|string|hex]; each takes a column
 * number (0-based) or a header name. Options in the same list: sep=,|;|tab,
 * header=yes|no (default: yes when a name is used or when the first line's ts field
 * is not a number), tsunit=E (the ts/end columns are in 10^E s; default the trace
 * unit, ns unless --time-unit). Values are converted exactly; a value more precise
 * than the trace unit is an error.
 *
 * Without --map, a header whose names are those keys (ts, end, type, producer, ...;
 * other columns become parameters) is its own map: that is what `traza gen -o x.csv`
 * writes.
 *
 * The category comes from the category column when mapped, else from the row: an
 * end producer makes a link, a value a variable, an end time a state, nothing a
 * punctual event. A type used with two categories is an error naming the line.
 * Rows may come in any time order (the store sorts). */
#include "import/csvutil.h"
#include "import/importers.h"
#include "import/skips.h"
#include "util/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { K_TS, K_END, K_TYPE, K_PRODUCER, K_END_PRODUCER, K_CPU, K_VALUE, K_LEVEL, K_CATEGORY, K_NFIXED };
static const char *const key_names[K_NFIXED] = {"ts", "end", "type", "producer", "end_producer", "cpu", "value", "level", "category"};

typedef struct col_ref {
    char *name;     /* header name, or NULL */
    long num;       /* column number, or -1 */
} col_ref;

typedef struct csv_param {
    char *pname;
    int ptype;      /* -1 = guess from the first value */
    col_ref ref;
    long col;
} csv_param;

typedef struct csv_map {
    col_ref fixed[K_NFIXED];
    long col[K_NFIXED];
    csv_param *params;
    size_t nparams, capparams;
    char sep;       /* 0 = auto */
    int header;     /* -1 auto, 0 no, 1 yes */
    int has_tsunit, tsunit;
    int auto_params;/* header-as-map: unknown columns become parameters */
} csv_map;

static void map_free(csv_map *m)
{
    for (int k = 0; k < K_NFIXED; k++)
        free(m->fixed[k].name);
    for (size_t i = 0; i < m->nparams; i++) {
        free(m->params[i].pname);
        free(m->params[i].ref.name);
    }
    free(m->params);
    memset(m, 0, sizeof *m);
}

static int key_index(const char *k, size_t n)
{
    for (int i = 0; i < K_NFIXED; i++)
        if (strlen(key_names[i]) == n && !strncasecmp(key_names[i], k, n))
            return i;
    if (n == 6 && !strncasecmp(k, "end_ts", 6))
        return K_END;
    return -1;
}

static int parse_ref(const char *v, size_t n, col_ref *r)
{
    int64_t x;
    r->name = NULL;
    r->num = -1;
    if (n == 0)
        return -1;
    if (tz_parse_int(v, n, &x) == 0) {
        if (x < 0 || x > 100000)
            return -1;
        r->num = (long)x;
        return 0;
    }
    r->name = tz_strndup(v, n);
    return r->name ? 0 : -1;
}

static int parse_map(const char *s, csv_map *m, traza_err *err)
{
    memset(m, 0, sizeof *m);
    m->header = -1;
    for (int k = 0; k < K_NFIXED; k++) {
        m->fixed[k].num = -1;
        m->col[k] = -1;
    }
    const char *p = s;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        /* sep=, is written "sep=," which the split above cuts: take it whole. */
        if (n == 4 && !strncmp(p, "sep=", 4) && e) {
            m->sep = ',';
            p = e + 1;
            continue;
        }
        const char *eq = memchr(p, '=', n);
        if (!eq)
            return traza_err_set(err, TRAZA_E_USAGE, "column map: expected KEY=COLUMN, found '%.*s'", (int)n, p);
        size_t kl = (size_t)(eq - p), vl = n - kl - 1;
        const char *v = eq + 1;
        if (kl == 3 && !strncmp(p, "sep", 3)) {
            if (vl == 1 && (*v == ',' || *v == ';' || *v == '\t' || *v == '|'))
                m->sep = *v;
            else if (vl == 3 && !strncmp(v, "tab", 3))
                m->sep = '\t';
            else if (vl == 2 && !strncmp(v, "\\t", 2))
                m->sep = '\t';
            else if (vl == 5 && !strncmp(v, "comma", 5))
                m->sep = ',';
            else if (vl == 9 && !strncmp(v, "semicolon", 9))
                m->sep = ';';
            else
                return traza_err_set(err, TRAZA_E_USAGE, "column map: sep expects , ; | or tab, found '%.*s'", (int)vl, v);
        } else if (kl == 6 && !strncmp(p, "header", 6)) {
            if (vl == 3 && !strncmp(v, "yes", 3)) m->header = 1;
            else if (vl == 2 && !strncmp(v, "no", 2)) m->header = 0;
            else return traza_err_set(err, TRAZA_E_USAGE, "column map: header expects yes or no, found '%.*s'", (int)vl, v);
        } else if (kl == 6 && !strncmp(p, "tsunit", 6)) {
            int64_t u;
            if (tz_parse_int(v, vl, &u) < 0 || u < -18 || u > 3)
                return traza_err_set(err, TRAZA_E_USAGE, "column map: tsunit expects an exponent from -18 to 3, found '%.*s'", (int)vl, v);
            m->has_tsunit = 1;
            m->tsunit = (int)u;
        } else if (kl > 6 && !strncmp(p, "param:", 6)) {
            const char *nm = p + 6;
            size_t nl = kl - 6;
            int pt = -1;
            const char *c = memchr(nm, ':', nl);
            if (c) {
                char tn[16];
                size_t tl = nl - (size_t)(c - nm) - 1;
                if (tl >= sizeof tn || (memcpy(tn, c + 1, tl), tn[tl] = '\0', (pt = traza_ptype_parse(tn)) < 0))
                    return traza_err_set(err, TRAZA_E_USAGE, "column map: parameter type expects int, double, string or hex, found '%.*s'",
                                         (int)tl, c + 1);
                nl = (size_t)(c - nm);
            }
            if (nl == 0)
                return traza_err_set(err, TRAZA_E_USAGE, "column map: param: needs a name (param:NAME=COLUMN)");
            if (TZ_GROW(m->params, m->capparams, m->nparams + 1) < 0)
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            csv_param *cp = &m->params[m->nparams];
            memset(cp, 0, sizeof *cp);
            cp->ptype = pt;
            cp->col = -1;
            m->nparams++;
            if (!(cp->pname = tz_strndup(nm, nl)) || parse_ref(v, vl, &cp->ref) < 0)
                return traza_err_set(err, TRAZA_E_USAGE, "column map: param:%.*s expects a column number or header name, found '%.*s'", (int)nl, nm,
                                     (int)vl, v);
        } else {
            int k = key_index(p, kl);
            if (k < 0)
                return traza_err_set(err, TRAZA_E_USAGE,
                                     "column map: unknown key '%.*s' (expected ts, end, type, producer, end_producer, cpu, value, level, "
                                     "category, param:NAME[:TYPE], sep, header, tsunit)",
                                     (int)kl, p);
            free(m->fixed[k].name);
            if (parse_ref(v, vl, &m->fixed[k]) < 0)
                return traza_err_set(err, TRAZA_E_USAGE, "column map: %s expects a column number or header name, found '%.*s'", key_names[k], (int)vl, v);
        }
        if (!e)
            break;
        p = e + 1;
    }
    static const int required[] = {K_TS, K_TYPE, K_PRODUCER};
    for (size_t i = 0; i < 3; i++)
        if (m->fixed[required[i]].num < 0 && !m->fixed[required[i]].name)
            return traza_err_set(err, TRAZA_E_USAGE, "column map: '%s' is required (e.g. ts=0,type=1,producer=2)", key_names[required[i]]);
    return 0;
}

static int uses_names(const csv_map *m)
{
    for (int k = 0; k < K_NFIXED; k++)
        if (m->fixed[k].name)
            return 1;
    for (size_t i = 0; i < m->nparams; i++)
        if (m->params[i].ref.name)
            return 1;
    return 0;
}

/* Resolves references against the header (may be NULL). */
static int resolve(csv_map *m, const tz_fields *hdr, const char *path, traza_err *err)
{
    for (int k = 0; k < K_NFIXED; k++) {
        col_ref *r = &m->fixed[k];
        m->col[k] = r->num;
        if (r->name) {
            m->col[k] = -1;
            for (size_t c = 0; hdr && c < hdr->n; c++)
                if (!strcmp(hdr->f[c], r->name))
                    m->col[k] = (long)c;
            if (m->col[k] < 0)
                return traza_err_set(err, TRAZA_E_PARSE, "%s:1: column map %s=%s: no column named '%s' in the header", path, key_names[k], r->name, r->name);
        }
    }
    for (size_t i = 0; i < m->nparams; i++) {
        csv_param *p = &m->params[i];
        p->col = p->ref.num;
        if (p->ref.name) {
            p->col = -1;
            for (size_t c = 0; hdr && c < hdr->n; c++)
                if (!strcmp(hdr->f[c], p->ref.name))
                    p->col = (long)c;
            if (p->col < 0)
                return traza_err_set(err, TRAZA_E_PARSE, "%s:1: column map param:%s: no column named '%s' in the header", path, p->pname, p->ref.name);
        }
    }
    return 0;
}

/* A header that is its own map: ts, type, producer present; other names become parameters. */
static int header_map(const tz_fields *hdr, csv_map *m, const char *path, traza_err *err)
{
    memset(m, 0, sizeof *m);
    m->header = 1;
    m->auto_params = 1;
    for (int k = 0; k < K_NFIXED; k++) {
        m->fixed[k].num = -1;
        m->col[k] = -1;
    }
    for (size_t c = 0; c < hdr->n; c++) {
        int k = key_index(hdr->f[c], hdr->len[c]);
        if (k >= 0)
            m->fixed[k].num = (long)c;
    }
    if (m->fixed[K_TS].num < 0 || m->fixed[K_TYPE].num < 0 || m->fixed[K_PRODUCER].num < 0)
        return traza_err_set(err, TRAZA_E_USAGE,
                             "%s: no column map given and the header does not name the columns ts, type and producer: "
                             "give the column map, e.g. ts=0,type=1,producer=2",
                             path);
    for (size_t c = 0; c < hdr->n; c++) {
        if (key_index(hdr->f[c], hdr->len[c]) >= 0)
            continue;
        if (!hdr->len[c])
            return traza_err_set(err, TRAZA_E_PARSE, "%s:1: column %zu: expected a column name in the header, found an empty field", path, c + 1);
        if (TZ_GROW(m->params, m->capparams, m->nparams + 1) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        csv_param *p = &m->params[m->nparams++];
        memset(p, 0, sizeof *p);
        p->ptype = -1;
        p->ref.num = (long)c;
        if (!(p->pname = tz_strdup(hdr->f[c])))
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    if (m->fixed[K_TS].num < 0 || m->fixed[K_TYPE].num < 0 || m->fixed[K_PRODUCER].num < 0)
        return traza_err_set(err, TRAZA_E_USAGE,
                             "%s: no column map given and the header does not name the columns ts, type and producer: "
                             "give the column map, e.g. ts=0,type=1,producer=2",
                             path);
    return resolve(m, hdr, path, err);
}

static int csv_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    const char *ls[32];
    size_t ll[32];
    size_t n = tz_head_lines(head, len, ls, ll, 32);
    if (n < 1)
        return 0;
    char sep = tz_guess_sep(ls[0], ll[0]);
    char buf[8192];
    if (ll[0] >= sizeof buf)
        return 0;
    memcpy(buf, ls[0], ll[0]);
    buf[ll[0]] = '\0';
    tz_fields r = {0};
    if (tz_fields_split(&r, buf, ll[0], sep, "", 0, NULL) < 0 || r.n < 2) {
        tz_fields_free(&r);
        return 0;
    }
    int keys = 0, need = 0;
    for (size_t c = 0; c < r.n; c++) {
        int k = key_index(r.f[c], r.len[c]);
        if (k >= 0)
            keys++;
        if (k == K_TS || k == K_TYPE || k == K_PRODUCER)
            need++;
    }
    size_t ncols = r.n;
    int same = 1;
    for (size_t i = 1; i < n; i++) {
        if (ll[i] >= sizeof buf)
            break;
        memcpy(buf, ls[i], ll[i]);
        buf[ll[i]] = '\0';
        if (tz_fields_split(&r, buf, ll[i], sep, "", 0, NULL) < 0 || r.n != ncols)
            same = 0;
    }
    tz_fields_free(&r);
    if (need == 3)
        return same ? 95 : 60;
    return same ? 10 : 0; /* a delimited file: importable with --map */
}

typedef struct csv_state {
    traza_writer *w;
    tz_namecache producers, types;
    tz_param_slots slots;   /* one per (type, parameter of the map) */
    traza_param *pbuf;
    int64_t unmapped;       /* non-empty fields of columns the map does not use */
} csv_state;

static int time_field(const char *path, long ln, long col, const char *nm, const char *f, size_t n, int shift, int64_t *out, traza_err *err)
{
    int rc = tz_parse_fixed(f, n, shift, out);
    if (rc == 0)
        return 0;
    return tz_field_err(err, path, ln, (size_t)col, nm,
                        rc == -2 ? "a time that fits in 64 bits in the trace unit"
                        : rc == -3 ? "no more precision than the trace unit (set a finer time unit of the trace, or tsunit= in the column map)"
                                   : "a number (time)",
                        f, n);
}

static int csv_file(traza_ctx *ctx, csv_state *s, const char *path, const traza_import_opts *opts, int *unit, int first_file,
                    long *evno, traza_err *err)
{
    csv_map m;
    memset(&m, 0, sizeof m);
    tz_lines lr;
    if (tz_lines_open(&lr, path, err) < 0)
        return -1;
    tz_fields r = {0};
    unsigned char *used = NULL; /* [column]: the map reads it */
    int rc = -1;
    char *line;
    size_t len;
    int got = tz_lines_next(&lr, &line, &len, err);
    if (got <= 0) {
        if (got == 0)
            traza_err_set(err, TRAZA_E_PARSE, "%s: empty file: expected CSV lines", path);
        goto out;
    }
    if (tz_check_utf8(line, len, path, 1, err) < 0)
        goto out;
    int have_map = opts && opts->map && *opts->map;
    if (have_map && parse_map(opts->map, &m, err) < 0)
        goto out;
    char sep = m.sep ? m.sep : tz_guess_sep(line, len);
    if (tz_fields_split(&r, line, len, sep, path, 1, err) < 0)
        goto out;
    int header;
    if (!have_map) {
        if (header_map(&r, &m, path, err) < 0)
            goto out;
        header = 1;
    } else {
        header = m.header;
        if (header < 0) {
            int64_t x;
            header = uses_names(&m) ||
                     (m.fixed[K_TS].num >= 0 && (size_t)m.fixed[K_TS].num < r.n &&
                      tz_parse_fixed(r.f[m.fixed[K_TS].num], r.len[m.fixed[K_TS].num], 0, &x) == -1);
        }
        if (!header && uses_names(&m)) {
            traza_err_set(err, TRAZA_E_USAGE, "column map: uses column names but header=no");
            goto out;
        }
        if (resolve(&m, header ? &r : NULL, path, err) < 0)
            goto out;
    }
    if (first_file) {
        if (opts && opts->has_time_unit)
            *unit = opts->time_unit;
        traza_writer_set_time_unit(s->w, *unit);
    }
    int shift = (m.has_tsunit ? m.tsunit : *unit) - *unit;
    long maxcol = -1;
    for (int k = 0; k < K_NFIXED; k++)
        if (m.col[k] > maxcol)
            maxcol = m.col[k];
    for (size_t i = 0; i < m.nparams; i++)
        if (m.params[i].col > maxcol)
            maxcol = m.params[i].col;
    free(s->pbuf);
    tz_param_slots_reset(&s->slots, m.nparams);
    if (!(s->pbuf = calloc(m.nparams + 1, sizeof *s->pbuf))) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    if (!(used = calloc((size_t)maxcol + 2, 1))) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    for (int k = 0; k < K_NFIXED; k++)
        if (m.col[k] >= 0)
            used[m.col[k]] = 1;
    for (size_t i = 0; i < m.nparams; i++)
        used[m.params[i].col] = 1;
    size_t hdr_cols = header ? r.n : 0;
    int reuse_first = !header;
    for (;;) {
        long ln;
        if (reuse_first) {
            reuse_first = 0;
            ln = 1;
        } else {
            got = tz_lines_next(&lr, &line, &len, err);
            if (got <= 0)
                break;
            ln = lr.lineno;
            if (len == 0)
                continue;
            if (tz_check_utf8(line, len, path, ln, err) < 0 || tz_fields_split(&r, line, len, sep, path, ln, err) < 0)
                goto out;
        }
        if (hdr_cols && r.n > hdr_cols) {
            char b[100];
            traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: column %zu: expected at most %zu fields (the header's), found an unknown extra column '%s'",
                          path, ln, hdr_cols + 1, hdr_cols, tz_shorten(r.f[hdr_cols], r.len[hdr_cols], b, sizeof b));
            goto out;
        }
        if ((long)r.n <= maxcol) {
            const char *nm = NULL;
            for (int k = 0; k < K_NFIXED; k++)
                if (m.col[k] == (long)r.n)
                    nm = key_names[k];
            tz_field_err(err, path, ln, r.n, nm, "more fields (the map uses this column)", NULL, 0);
            goto out;
        }
        for (size_t c = 0; c < r.n; c++)
            if (r.len[c] && ((long)c > maxcol || !used[c]))
                s->unmapped++;
#define F(k) r.f[m.col[k]]
#define L(k) r.len[m.col[k]]
#define HAS(k) (m.col[k] >= 0 && L(k) > 0)
        traza_event ev;
        memset(&ev, 0, sizeof ev);
        if (!HAS(K_TS)) {
            tz_field_err(err, path, ln, (size_t)m.col[K_TS], "ts", "a timestamp", "", 0);
            goto out;
        }
        if (time_field(path, ln, m.col[K_TS], "ts", F(K_TS), L(K_TS), shift, &ev.ts, err) < 0)
            goto out;
        if (HAS(K_END)) {
            if (time_field(path, ln, m.col[K_END], "end", F(K_END), L(K_END), shift, &ev.end_ts, err) < 0)
                goto out;
            if (ev.end_ts < ev.ts) {
                tz_field_err(err, path, ln, (size_t)m.col[K_END], "end", "an end time not before ts", F(K_END), L(K_END));
                goto out;
            }
            ev.has |= TRAZA_HAS_END;
        }
        if (!HAS(K_TYPE)) {
            tz_field_err(err, path, ln, (size_t)m.col[K_TYPE], "type", "an event type name", "", 0);
            goto out;
        }
        if (!HAS(K_PRODUCER)) {
            tz_field_err(err, path, ln, (size_t)m.col[K_PRODUCER], "producer", "a producer name", "", 0);
            goto out;
        }
        if ((ev.producer = tz_cached_producer(&s->producers, s->w, -1, F(K_PRODUCER), L(K_PRODUCER), NULL, err)) < 0)
            goto out;
        if (HAS(K_END_PRODUCER)) {
            if ((ev.end_producer = tz_cached_producer(&s->producers, s->w, -1, F(K_END_PRODUCER), L(K_END_PRODUCER), NULL, err)) < 0)
                goto out;
            ev.has |= TRAZA_HAS_END_PRODUCER;
        }
        int64_t x;
        if (HAS(K_CPU)) {
            if (tz_parse_int(F(K_CPU), L(K_CPU), &x) < 0 || x < 0 || x > INT32_MAX) {
                tz_field_err(err, path, ln, (size_t)m.col[K_CPU], "cpu", "a CPU number (0 to 2^31-1)", F(K_CPU), L(K_CPU));
                goto out;
            }
            ev.cpu = (int32_t)x;
            ev.has |= TRAZA_HAS_CPU;
        }
        if (HAS(K_LEVEL)) {
            if (tz_parse_int(F(K_LEVEL), L(K_LEVEL), &x) < 0 || x < 0 || x > INT32_MAX) {
                tz_field_err(err, path, ln, (size_t)m.col[K_LEVEL], "level", "a nesting level (0 to 2^31-1)", F(K_LEVEL), L(K_LEVEL));
                goto out;
            }
            ev.level = (int32_t)x;
            ev.has |= TRAZA_HAS_LEVEL;
        }
        if (HAS(K_VALUE)) {
            traza_value v;
            if (tz_parse_value(TRAZA_PT_DOUBLE, F(K_VALUE), L(K_VALUE), &v) < 0) {
                tz_field_err(err, path, ln, (size_t)m.col[K_VALUE], "value", "a finite number", F(K_VALUE), L(K_VALUE));
                goto out;
            }
            ev.value = v.d;
            ev.has |= TRAZA_HAS_VALUE;
        }
        traza_category cat;
        if (HAS(K_CATEGORY)) {
            int c = traza_category_parse(F(K_CATEGORY));
            if (c < 0) {
                tz_field_err(err, path, ln, (size_t)m.col[K_CATEGORY], "category", "punctual, state, link or variable", F(K_CATEGORY), L(K_CATEGORY));
                goto out;
            }
            cat = (traza_category)c;
        } else {
            cat = (ev.has & TRAZA_HAS_END_PRODUCER) ? TRAZA_LINK
                  : (ev.has & TRAZA_HAS_VALUE)      ? TRAZA_VARIABLE
                  : (ev.has & TRAZA_HAS_END)        ? TRAZA_STATE
                                                    : TRAZA_PUNCTUAL;
        }
        if (cat == TRAZA_LINK && !(ev.has & TRAZA_HAS_END_PRODUCER)) {
            tz_field_err(err, path, ln, (size_t)(m.col[K_END_PRODUCER] >= 0 ? m.col[K_END_PRODUCER] : m.col[K_CATEGORY]), "end_producer",
                         "an end producer for a link", "", 0);
            goto out;
        }
        if (cat != TRAZA_PUNCTUAL && !(ev.has & TRAZA_HAS_END)) {
            ev.end_ts = ev.ts;
            ev.has |= TRAZA_HAS_END;
        }
        if ((ev.type = tz_cached_type(&s->types, s->w, F(K_TYPE), L(K_TYPE), cat, path, ln, err)) < 0)
            goto out;
#undef F
#undef L
#undef HAS
        uint32_t npar = 0;
        for (size_t i = 0; i < m.nparams; i++) {
            const char *f = r.f[m.params[i].col];
            size_t fl = r.len[m.params[i].col];
            if (!fl)
                continue;
            traza_ptype pt;
            int vr = tz_param_slot_value(&s->slots, s->w, ev.type, i, m.params[i].pname, m.params[i].ptype, f, fl, &s->pbuf[npar],
                                         &pt, err);
            if (vr == -1) {
                traza_err_prefix(err, "%s:%ld: ", path, ln);
                goto out;
            }
            if (vr < 0) {
                char ex[160];
                snprintf(ex, sizeof ex, "a %s value for parameter '%s'%s", traza_ptype_name(pt), m.params[i].pname,
                         m.params[i].ptype >= 0 ? "" : " (its type came from its first value)");
                tz_field_err(err, path, ln, (size_t)m.params[i].col, m.params[i].pname, ex, f, fl);
                goto out;
            }
            npar++;
        }
        ev.params = s->pbuf;
        ev.nparams = npar;
        if (tz_import_emit(ctx, s->w, &ev, lr.in, path, ln, evno, err) < 0)
            goto out;
    }
    if (got < 0)
        goto out;
    rc = 0;
out:
    free(used);
    map_free(&m);
    tz_fields_free(&r);
    tz_lines_close(&lr);
    return rc;
}

static int csv_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                    traza_err *err)
{
    csv_state s;
    memset(&s, 0, sizeof s);
    s.w = w;
    tz_namecache_init(&s.producers);
    tz_namecache_init(&s.types);
    int unit = -9, rc = 0;
    long evno = 0;
    for (size_t i = 0; i < npaths && rc == 0; i++)
        rc = csv_file(ctx, &s, paths[i], opts, &unit, i == 0, &evno, err);
    if (rc == 0) {
        const tz_skip_kind k = {"unmapped_values", "values in columns the map does not use", s.unmapped};
        rc = tz_skips_report(ctx, w, paths[0], &k, 1, tz_strict(opts), -1, err);
    }
    tz_namecache_free(&s.producers);
    tz_namecache_free(&s.types);
    tz_param_slots_reset(&s.slots, 0);
    free(s.pbuf);
    return rc;
}

const traza_importer tz_importer_csv = {
    "csv", "import-csv", "any delimited text with a column map (ts=0,type=1,producer=2,...) or a header naming the columns",
    csv_detect, csv_read,
};
