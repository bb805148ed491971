/* Importer of pj_dump's CSV-like output ("Kind, field, field, ...").
 *
 * Lines: Container, Parent, Type, Start, End, Duration, Name
 *        State, Container, Type, Start, End, Duration, Imbrication, Value
 *        Event, Container, Type, Time, Value
 *        Variable, Container, Type, Start, End, Duration, Value
 *        Link, Container, Type, Start, End, Duration, Value, StartContainer, EndContainer, Key
 * (pj_dump -u appends user-defined fields: counted as skipped, import/skips.h; -h
 * header lines are passed over). The model mapping is the native Pajé importer's (paje_common.h).
 * pj_dump prints container names, which need not be unique: an entity line refers to
 * the container printed last when the name matches (pj_dump prints each container's
 * entities right after it), else to the latest container of that name.
 * Times are decimal seconds, stored in nanoseconds: pj_dump prints entity times with
 * 6 decimals and container times with 6 significant digits, so nothing is lost. */
#include "import/importers.h"
#include "import/skips.h"
#include "formats/paje_common.h"
#include "util/input.h"
#include "util/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PJ_UNIT (-9)
#define PJ_MAXF 64

typedef struct pj {
    traza_writer *w;
    const char *path;
    long lineno;
    traza_err *err;
    char *f[PJ_MAXF];
    size_t nf;
    tz_map conts;        /* name -> producer id (latest) */
    int32_t last_cont;   /* producer of the last Container line */
    char *last_name;
    tz_map types;        /* "<category>\x1f<type>\x1f<value>" -> event type id */
    tz_map et_names;     /* event type name -> 1 */
    tz_buf key, meta_types, meta_conts;
    int32_t *link_defs;  /* per event type: value, key, container param defs */
    size_t caplink;
    char **deferred;     /* Link lines: their containers may be printed later */
    long *deferred_line;
    size_t ndeferred, capdeferred, capdeferred_line;
    int replay;
    int64_t user_fields; /* fields after the standard ones (pj_dump -u): not imported */
} pj;

__attribute__((format(printf, 2, 3))) static int pjerr(pj *p, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return traza_err_set(p->err, TRAZA_E_PARSE, "%s:%ld: %s", p->path, p->lineno, msg);
}

static int pj_werr(pj *p)
{
    if (p->err && p->err->code == TRAZA_E_NOMEM)
        return -1;
    char msg[900];
    snprintf(msg, sizeof msg, "%.800s", p->err ? p->err->msg : "store error");
    return pjerr(p, "%s", msg);
}

static int pj_time(pj *p, const char *s, const char *what, int64_t *out)
{
    int neg, e;
    uint64_t m;
    const char *why = NULL;
    if (tz_paje_decimal(s, &neg, &m, &e, &why) < 0)
        return pjerr(p, "expected %s in decimal seconds, found '%s' (%s)", what, s, why);
    if (neg && m)
        return pjerr(p, "expected %s >= 0, found '%s'", what, s);
    int shift = e - PJ_UNIT;
    if (m == 0) {
        *out = 0;
        return 0;
    }
    if (shift < 0) { /* finer than ns: round to nearest */
        if (shift < -19) {
            *out = 0;
            return 0;
        }
        uint64_t d = 1;
        for (int i = 0; i < -shift; i++)
            d *= 10;
        *out = (int64_t)((m + d / 2) / d);
        return 0;
    }
    uint64_t v = m;
    for (int i = 0; i < shift; i++) {
        if (v > (uint64_t)INT64_MAX / 10)
            return pjerr(p, "%s '%s' is absurdly large", what, s);
        v *= 10;
    }
    *out = (int64_t)v;
    return 0;
}

static int pj_cont(pj *p, const char *name, int32_t *out)
{
    if (p->last_name && strcmp(p->last_name, name) == 0) {
        *out = p->last_cont;
        return 0;
    }
    int64_t v;
    if (!tz_map_get(&p->conts, name, &v))
        return pjerr(p, "unknown container '%s' (expected a Container line before)", name);
    *out = (int32_t)v;
    return 0;
}

static int32_t pj_type(pj *p, traza_category cat, const char *ptype, const char *value)
{
    tz_buf_reset(&p->key);
    tz_buf_printf(&p->key, "%d\x1f%s\x1f%s", (int)cat, ptype, value ? value : "");
    if (p->key.oom)
        return traza_err_set(p->err, TRAZA_E_NOMEM, "out of memory");
    int64_t v;
    if (tz_map_get(&p->types, p->key.s, &v))
        return (int32_t)v;
    char *k = tz_strdup(p->key.s);
    const char *base = value && *value ? value : ptype;
    char *name = tz_strdup(base);
    for (int attempt = 0; name && tz_map_get(&p->et_names, name, NULL); attempt++) {
        free(name);
        name = attempt == 0 ? tz_asprintf("%s (%s)", base, ptype) : tz_asprintf("%s (%s %d)", base, ptype, attempt + 1);
    }
    if (!k || !name) {
        free(k);
        free(name);
        return traza_err_set(p->err, TRAZA_E_NOMEM, "out of memory");
    }
    int32_t id = traza_writer_event_type(p->w, name, cat, p->err);
    int rc = id < 0 ? pj_werr(p) : (tz_map_put(&p->et_names, name, 1) < 0 || tz_map_put(&p->types, k, id) < 0) ? traza_err_set(p->err, TRAZA_E_NOMEM, "out of memory") : 0;
    free(name);
    free(k);
    if (rc < 0)
        return -1;
    tz_buf_printf(&p->meta_types, "%d" TZ_PAJE_US "%s" TZ_PAJE_US "%s" TZ_PAJE_US "%s" TZ_PAJE_RS, id, traza_category_name(cat), ptype,
                  value ? value : "");
    if (cat == TRAZA_LINK) {
        if ((size_t)id * 3 + 3 > p->caplink) {
            size_t need = (size_t)id * 3 + 3;
            if (TZ_GROW(p->link_defs, p->caplink, need) < 0)
                return traza_err_set(p->err, TRAZA_E_NOMEM, "out of memory");
        }
        if ((p->link_defs[id * 3] = traza_writer_param_def(p->w, id, TZ_PAJE_P_VALUE, TRAZA_PT_STRING, p->err)) < 0 ||
            (p->link_defs[id * 3 + 1] = traza_writer_param_def(p->w, id, TZ_PAJE_P_KEY, TRAZA_PT_STRING, p->err)) < 0 ||
            (p->link_defs[id * 3 + 2] = traza_writer_param_def(p->w, id, TZ_PAJE_P_CONTAINER, TRAZA_PT_INT, p->err)) < 0)
            return pj_werr(p);
    }
    return id;
}

/* The line has the n standard fields of its kind; what follows is counted. */
static int pj_need(pj *p, size_t n)
{
    if (p->nf < n)
        return pjerr(p, "%s line: expected %zu fields, found %zu (truncated line?)", p->f[0], n, p->nf);
    p->user_fields += (int64_t)(p->nf - n);
    return 0;
}

static int pj_line(pj *p, char *s, size_t len)
{
    if (memchr(s, '\0', len))
        return pjerr(p, "expected text, found a NUL byte");
    long bad = tz_utf8_invalid(s, len);
    if (bad >= 0)
        return pjerr(p, "invalid UTF-8 at column %ld", bad + 1);
    p->nf = 0;
    char *q = s;
    for (;;) {
        if (p->nf == PJ_MAXF)
            return pjerr(p, "more than %d fields", PJ_MAXF);
        p->f[p->nf++] = q;
        char *c = strstr(q, ", ");
        if (!c)
            break;
        *c = '\0';
        q = c + 2;
    }
    const char *kind = p->f[0];
    if (!*kind && p->nf == 1)
        return 0;
    /* pj_dump -h header lines */
    if (p->nf > 3 && (strcmp(p->f[3], "Start") == 0 || strcmp(p->f[3], "Time") == 0))
        return 0;
    traza_event ev;
    memset(&ev, 0, sizeof ev);
    if (strcmp(kind, "Container") == 0) {
        int64_t st, en;
        if (pj_need(p, 7) < 0 || pj_time(p, p->f[3], "a start time", &st) < 0 || pj_time(p, p->f[4], "an end time", &en) < 0)
            return -1;
        int32_t parent = -1;
        int root = strcmp(p->f[1], "0") == 0 && strcmp(p->f[2], "0") == 0 && strcmp(p->f[6], "0") == 0 && !p->conts.count;
        if (!root) {
            int64_t v;
            if (!p->conts.count)
                return pjerr(p, "expected the root container line 'Container, 0, 0, ...' first");
            if (p->last_name && strcmp(p->last_name, p->f[1]) == 0)
                parent = p->last_cont;
            else if (tz_map_get(&p->conts, p->f[1], &v))
                parent = (int32_t)v;
            else
                return pjerr(p, "unknown parent container '%s'", p->f[1]);
        }
        int32_t id = traza_writer_producer(p->w, parent, p->f[6], p->f[2], p->err);
        if (id < 0)
            return pj_werr(p);
        char *nm = tz_strdup(p->f[6]);
        if (!nm || tz_map_put(&p->conts, p->f[6], id) < 0) {
            free(nm);
            return traza_err_set(p->err, TRAZA_E_NOMEM, "out of memory");
        }
        free(p->last_name);
        p->last_name = nm;
        p->last_cont = id;
        tz_buf_printf(&p->meta_conts, "%d" TZ_PAJE_US "%lld" TZ_PAJE_US "%lld" TZ_PAJE_RS, id, (long long)st, (long long)en);
        return 0;
    }
    int cat;
    size_t need;
    if (strcmp(kind, "State") == 0) { cat = TRAZA_STATE; need = 8; }
    else if (strcmp(kind, "Event") == 0) { cat = TRAZA_PUNCTUAL; need = 5; }
    else if (strcmp(kind, "Variable") == 0) { cat = TRAZA_VARIABLE; need = 7; }
    else if (strcmp(kind, "Link") == 0) {
        cat = TRAZA_LINK;
        need = 10;
        if (!p->replay) {
            /* pj_dump prints the links of a container before its sub-containers */
            for (size_t i = 1; i < p->nf; i++)
                p->f[i][-2] = ',';
            char *copy = tz_strdup(s);
            if (!copy || TZ_GROW(p->deferred, p->capdeferred, p->ndeferred + 1) < 0 ||
                TZ_GROW(p->deferred_line, p->capdeferred_line, p->ndeferred + 1) < 0) {
                free(copy);
                return traza_err_set(p->err, TRAZA_E_NOMEM, "out of memory");
            }
            p->deferred[p->ndeferred] = copy;
            p->deferred_line[p->ndeferred++] = p->lineno;
            return 0;
        }
    }
    else
        return pjerr(p, "expected Container, State, Event, Variable or Link, found '%s'", kind);
    if (pj_need(p, need) < 0 || pj_cont(p, p->f[1], &ev.producer) < 0 || pj_time(p, p->f[3], "a time", &ev.ts) < 0)
        return -1;
    if (cat != TRAZA_PUNCTUAL) {
        if (pj_time(p, p->f[4], "an end time", &ev.end_ts) < 0)
            return -1;
        if (ev.end_ts < ev.ts)
            return pjerr(p, "the end time %s is before the start time %s", p->f[4], p->f[3]);
        ev.has |= TRAZA_HAS_END;
    }
    const char *value = cat == TRAZA_STATE ? p->f[7] : cat == TRAZA_PUNCTUAL ? p->f[4] : NULL;
    ev.type = pj_type(p, (traza_category)cat, p->f[2], value);
    if (ev.type < 0)
        return -1;
    traza_param ps[3];
    if (cat == TRAZA_STATE) {
        double lv;
        if (tz_parse_double(p->f[6], strlen(p->f[6]), &lv) < 0 || !(lv >= 0 && lv < 1e9) || lv != floor(lv))
            return pjerr(p, "expected a nesting level (a whole number), found '%s'", p->f[6]);
        ev.level = (int32_t)lv;
        ev.has |= TRAZA_HAS_LEVEL;
    } else if (cat == TRAZA_VARIABLE) {
        if (tz_parse_double(p->f[6], strlen(p->f[6]), &ev.value) < 0 || !isfinite(ev.value))
            return pjerr(p, "expected a number for the variable value, found '%s'", p->f[6]);
        ev.has |= TRAZA_HAS_VALUE;
    } else if (cat == TRAZA_LINK) {
        int32_t holder;
        if (pj_cont(p, p->f[1], &holder) < 0 || pj_cont(p, p->f[7], &ev.producer) < 0 || pj_cont(p, p->f[8], &ev.end_producer) < 0)
            return -1;
        ev.has |= TRAZA_HAS_END_PRODUCER;
        memset(ps, 0, sizeof ps);
        ps[0].def = p->link_defs[ev.type * 3]; ps[0].v.kind = TRAZA_PT_STRING; ps[0].v.s = p->f[6];
        ps[1].def = p->link_defs[ev.type * 3 + 1]; ps[1].v.kind = TRAZA_PT_STRING; ps[1].v.s = p->f[9];
        ps[2].def = p->link_defs[ev.type * 3 + 2]; ps[2].v.kind = TRAZA_PT_INT; ps[2].v.i = holder;
        ev.params = ps;
        ev.nparams = 3;
    }
    if (traza_writer_event(p->w, &ev, p->err) < 0)
        return pj_werr(p);
    return 0;
}

static int pjdump_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                       traza_err *err)
{
    if (npaths != 1)
        return traza_err_set(err, TRAZA_E_USAGE, "the pjdump importer reads one file at a time (got %zu)", npaths);
    pj p;
    memset(&p, 0, sizeof p);
    p.w = w;
    p.path = paths[0];
    p.err = err;
    tz_buf_init(&p.key);
    tz_buf_init(&p.meta_types);
    tz_buf_init(&p.meta_conts);
    traza_writer_set_time_unit(w, PJ_UNIT);
    tz_lines lr;
    int rc = tz_lines_open(&lr, p.path, err);
    if (rc == 0) {
        char *line;
        size_t len;
        while ((rc = tz_lines_next(&lr, &line, &len, err)) > 0) {
            p.lineno = lr.lineno;
            if (pj_line(&p, line, len) < 0) {
                rc = -1;
                break;
            }
        }
        tz_lines_close(&lr);
    }
    free(p.last_name);
    p.last_name = NULL;
    p.replay = 1;
    for (size_t i = 0; rc == 0 && i < p.ndeferred; i++) {
        p.lineno = p.deferred_line[i];
        if (pj_line(&p, p.deferred[i], strlen(p.deferred[i])) < 0)
            rc = -1;
    }
    for (size_t i = 0; i < p.ndeferred; i++)
        free(p.deferred[i]);
    free(p.deferred);
    free(p.deferred_line);
    if (rc == 0 && !p.conts.count)
        rc = traza_err_set(err, TRAZA_E_PARSE, "%s: no Container line: not pj_dump output (empty or truncated file?)", p.path);
    if (rc == 0 && (p.meta_types.oom || p.meta_conts.oom))
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (rc == 0 && (traza_writer_set_param(w, "paje.types", p.meta_types.s ? p.meta_types.s : "", err) < 0 ||
                    traza_writer_set_param(w, "paje.containers", p.meta_conts.s ? p.meta_conts.s : "", err) < 0))
        rc = -1;
    if (rc == 0) {
        const tz_skip_kind k = {"user_fields", "user-defined fields after the standard ones (pj_dump -u)", p.user_fields};
        rc = tz_skips_report(ctx, w, p.path, &k, 1, tz_strict(opts), -1, err);
    }
    tz_map_free(&p.conts);
    tz_map_free(&p.types);
    tz_map_free(&p.et_names);
    tz_buf_free(&p.key);
    tz_buf_free(&p.meta_types);
    tz_buf_free(&p.meta_conts);
    free(p.link_defs);
    free(p.last_name);
    return rc < 0 ? -1 : 0;
}

/* Content detection: the first line is pj_dump's root container line
 * ("Container, 0, 0, 0, <end>, <end>, 0") or its -h header. */
static int pjdump_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    static const char root[] = "Container, 0, 0, ";
    static const char hdr[] = "Container, Parent, Type, Start, End, Duration, Name";
    if (len >= sizeof root - 1 && memcmp(head, root, sizeof root - 1) == 0)
        return 80;
    if (len >= sizeof hdr - 1 && memcmp(head, hdr, sizeof hdr - 1) == 0)
        return 80;
    return 0;
}

const traza_importer tz_importer_pjdump = {
    "pjdump", "import-pjdump", "pj_dump's CSV output (Container/State/Event/Variable/Link lines)", pjdump_detect, pjdump_read};
