/* Pajé export: a Pajé trace that the Pajé importer (and pj_dump) reads back to the
 * same model: producers as containers (types from the producer types), states as
 * PajePushState/PajePopState pairs that rebuild the same nesting levels, punctual
 * events as PajeNewEvent, variables as PajeSetVariable, links as
 * PajeStartLink/PajeEndLink pairs with their keys, container creation and destruction
 * at the times the import recorded. Event type names, Pajé type and value names and
 * colours come from the names the importer kept (paje_common.h); traces of other
 * formats get one Pajé state type "State" and one event type "Event" per container
 * type, whose values are the event type names.
 *
 * Lines are written in time order (creations first, destructions last at equal
 * times). Not exported: user-defined (extra) fields of the original events, and gaps
 * between successive values of a variable (Pajé variables have no gaps). */
#include "export/exporters.h"
#include "export/paje_meta.h"
#include "formats/paje_common.h"
#include "util/util.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct line {
    int64_t time;
    int phase;        /* 0 create, 1 entity, 2 destroy */
    int64_t seq;
    size_t off, len;
} line;

typedef struct st_rec {
    int64_t start, end;
    int level;
    int value;
} st_rec;

typedef struct st_group {
    int32_t producer;
    int ptype;
    st_rec *recs;
    size_t n, cap;
} st_group;

typedef struct ex {
    traza_trace *t;
    tz_paje_meta m;
    int unit;
    tz_buf defs, text, key;
    line *lines;
    size_t nlines, caplines;
    int64_t seq;
    int *ctype_of;            /* per producer: container type index (-1 root) */
    tz_map ctypes, ptypes, values;
    int nct, npt, nval;
    st_group *groups;
    size_t ngroups, capgroups;
    tz_imap group_ids;
    traza_err *err;
} ex;

/* A quoted Pajé string (quotes inside are not representable: replaced by '). */
static void q(tz_buf *b, const char *s)
{
    tz_buf_putc(b, '"');
    for (; s && *s; s++)
        tz_buf_putc(b, *s == '"' ? '\'' : (*s == '\n' || *s == '\r') ? ' ' : *s);
    tz_buf_putc(b, '"');
}

static void tm(ex *x, tz_buf *b, int64_t ticks)
{
    char buf[64];
    tz_paje_time_text(ticks, x->unit, buf, sizeof buf);
    tz_buf_puts(b, buf);
}

static void color_text(tz_buf *b, const char *c)
{
    unsigned r, g, bl;
    if (c && sscanf(c, "#%2x%2x%2x", &r, &g, &bl) == 3)
        tz_buf_printf(b, "\"%.6g %.6g %.6g\"", r / 255.0, g / 255.0, bl / 255.0);
    else
        tz_buf_puts(b, "\"1 1 1\"");
}

/* Starts a timed line; its text is appended to x->text by the caller. */
static int begin_line(ex *x, int64_t time, int phase)
{
    if (TZ_GROW(x->lines, x->caplines, x->nlines + 1) < 0)
        return traza_err_set(x->err, TRAZA_E_NOMEM, "out of memory");
    line *l = &x->lines[x->nlines++];
    l->time = time;
    l->phase = phase;
    l->seq = x->seq++;
    l->off = x->text.len;
    return 0;
}

static void end_line(ex *x)
{
    tz_buf_putc(&x->text, '\n');
    line *l = &x->lines[x->nlines - 1];
    l->len = x->text.len - l->off;
}

static const char *cont_id(ex *x, int32_t prod, char *buf, size_t n)
{
    if (prod < 0 || (prod == 0 && x->m.paje_root))
        return "0";
    snprintf(buf, n, "c%d", prod);
    return buf;
}

static const char *ct_alias(int ct, char *buf, size_t n)
{
    if (ct < 0)
        return "0";
    snprintf(buf, n, "CT%d", ct);
    return buf;
}

/* Pajé type of nature N (ST, ET, VT, LT) in container type ct; link types also by
 * their start and end container types. Defined on first use. */
static int ptype_of(ex *x, char nature, int ct, const char *name, int sct, int ect, const char *color)
{
    tz_buf_reset(&x->key);
    tz_buf_printf(&x->key, "%c\x1f%d\x1f%d\x1f%d\x1f%s", nature, ct, sct, ect, name);
    int64_t v;
    if (tz_map_get(&x->ptypes, x->key.s, &v))
        return (int)v;
    int id = x->npt++;
    if (tz_map_put(&x->ptypes, x->key.s, id) < 0)
        return traza_err_set(x->err, TRAZA_E_NOMEM, "out of memory");
    char a[32], b[32];
    tz_buf *d = &x->defs;
    switch (nature) {
    case 'S': tz_buf_printf(d, "3 T%d %s ", id, ct_alias(ct, a, sizeof a)); q(d, name); break;
    case 'E': tz_buf_printf(d, "4 T%d %s ", id, ct_alias(ct, a, sizeof a)); q(d, name); break;
    case 'V':
        tz_buf_printf(d, "2 T%d %s ", id, ct_alias(ct, a, sizeof a));
        q(d, name);
        tz_buf_putc(d, ' ');
        color_text(d, color);
        break;
    default:
        tz_buf_printf(d, "5 T%d %s %s ", id, ct_alias(ct, a, sizeof a), ct_alias(sct, b, sizeof b));
        tz_buf_printf(d, "%s ", ct_alias(ect, a, sizeof a));
        q(d, name);
        break;
    }
    tz_buf_putc(d, '\n');
    return id;
}

static int value_of(ex *x, int pt, const char *name, const char *color)
{
    tz_buf_reset(&x->key);
    tz_buf_printf(&x->key, "%d\x1f%s", pt, name);
    int64_t v;
    if (tz_map_get(&x->values, x->key.s, &v))
        return (int)v;
    int id = x->nval++;
    if (tz_map_put(&x->values, x->key.s, id) < 0)
        return traza_err_set(x->err, TRAZA_E_NOMEM, "out of memory");
    /* pj_dump rejects an empty colour: values without one use definition 16 */
    tz_buf_printf(&x->defs, "%d V%d T%d ", color ? 6 : 16, id, pt);
    q(&x->defs, name);
    if (color) {
        tz_buf_putc(&x->defs, ' ');
        color_text(&x->defs, color);
    }
    tz_buf_putc(&x->defs, '\n');
    return id;
}

static int state_rec(ex *x, int32_t prod, int pt, const traza_event *ev, int value)
{
    int64_t key = ((int64_t)prod << 32) | (uint32_t)pt, gi;
    if (!tz_imap_get(&x->group_ids, key, &gi)) {
        if (TZ_GROW(x->groups, x->capgroups, x->ngroups + 1) < 0 || tz_imap_put(&x->group_ids, key, (int64_t)x->ngroups) < 0)
            return traza_err_set(x->err, TRAZA_E_NOMEM, "out of memory");
        gi = (int64_t)x->ngroups++;
        memset(&x->groups[gi], 0, sizeof x->groups[gi]);
        x->groups[gi].producer = prod;
        x->groups[gi].ptype = pt;
    }
    st_group *g = &x->groups[gi];
    if (TZ_GROW(g->recs, g->cap, g->n + 1) < 0)
        return traza_err_set(x->err, TRAZA_E_NOMEM, "out of memory");
    st_rec *r = &g->recs[g->n++];
    r->start = ev->ts;
    r->end = ev->end_ts;
    r->level = (ev->has & TRAZA_HAS_LEVEL) ? ev->level : 0;
    r->value = value;
    return 0;
}

static int cmp_rec(const void *a, const void *b)
{
    const st_rec *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->level > y->level) - (x->level < y->level);
}

static int cmp_line(const void *a, const void *b)
{
    const line *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->phase != y->phase)
        return x->phase - y->phase;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Push/pop lines of one group, rebuilding the stack the levels describe. */
static int emit_states(ex *x, st_group *g)
{
    qsort(g->recs, g->n, sizeof *g->recs, cmp_rec);
    st_rec **stack = malloc((g->n + 1) * sizeof *stack);
    if (!stack)
        return traza_err_set(x->err, TRAZA_E_NOMEM, "out of memory");
    size_t depth = 0;
    char cb[32];
    const char *cid = cont_id(x, g->producer, cb, sizeof cb);
    for (size_t i = 0; i <= g->n; i++) {
        size_t want = i < g->n ? (size_t)(g->recs[i].level < 0 ? 0 : g->recs[i].level) : 0;
        while (depth > want) {
            st_rec *top = stack[--depth];
            if (begin_line(x, top->end, 1) < 0) {
                free(stack);
                return -1;
            }
            tz_buf_puts(&x->text, "12 ");
            tm(x, &x->text, top->end);
            tz_buf_printf(&x->text, " T%d %s", g->ptype, cid);
            end_line(x);
        }
        if (i == g->n)
            break;
        st_rec *r = &g->recs[i];
        if (begin_line(x, r->start, 1) < 0) {
            free(stack);
            return -1;
        }
        tz_buf_puts(&x->text, "11 ");
        tm(x, &x->text, r->start);
        tz_buf_printf(&x->text, " T%d %s V%d", g->ptype, cid, r->value);
        end_line(x);
        stack[depth++] = r;
    }
    free(stack);
    return 0;
}

static const char header[] =
    "# Pajé trace written by traza\n"
    "%EventDef PajeDefineContainerType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineVariableType 2\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n"
    "%EventDef PajeDefineStateType 3\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineEventType 4\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineLinkType 5\n% Alias string\n% Type string\n% StartContainerType string\n% EndContainerType string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineEntityValue 6\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n"
    "%EventDef PajeDefineEntityValue 16\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 7\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDestroyContainer 8\n% Time date\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeSetVariable 9\n% Time date\n% Type string\n% Container string\n% Value double\n%EndEventDef\n"
    "%EventDef PajeAddVariable 10\n% Time date\n% Type string\n% Container string\n% Value double\n%EndEventDef\n"
    "%EventDef PajePushState 11\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
    "%EventDef PajePopState 12\n% Time date\n% Type string\n% Container string\n%EndEventDef\n"
    "%EventDef PajeNewEvent 13\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
    "%EventDef PajeStartLink 14\n% Time date\n% Type string\n% Container string\n% Value string\n% StartContainer string\n% Key string\n%EndEventDef\n"
    "%EventDef PajeEndLink 15\n% Time date\n% Type string\n% Container string\n% Value string\n% EndContainer string\n% Key string\n%EndEventDef\n";

static int write_out(FILE *out, const char *s, size_t n, traza_err *err)
{
    if (n && fwrite(s, 1, n, out) != n)
        return traza_err_set(err, TRAZA_E_IO, "writing Pajé: %s", strerror(errno));
    return 0;
}

static int export_body(ex *x, const traza_filter *f, FILE *out)
{
    traza_trace *t = x->t;
    const traza_producer *ps;
    size_t np = traza_trace_producers(t, &ps);
    x->ctype_of = calloc(np + 1, sizeof *x->ctype_of);
    if (!x->ctype_of)
        return traza_err_set(x->err, TRAZA_E_NOMEM, "out of memory");
    const traza_trace_info *in = traza_trace_info_of(t);
    int64_t t0 = in->min_ts < 0 ? in->min_ts : 0;
    char a[32], b[32];
    /* container types and containers, parents first (ids follow creation) */
    for (size_t i = 0; i < np; i++) {
        const traza_producer *p = traza_trace_producer(t, (int32_t)i);
        if (i == 0 && x->m.paje_root) {
            x->ctype_of[0] = -1;
            continue;
        }
        int pct = p->parent >= 0 ? x->ctype_of[p->parent] : -1;
        const char *tname = p->type && *p->type ? p->type : "Producer";
        tz_buf_reset(&x->key);
        tz_buf_printf(&x->key, "%d\x1f%s", pct, tname);
        int64_t v;
        if (!tz_map_get(&x->ctypes, x->key.s, &v)) {
            v = x->nct++;
            if (tz_map_put(&x->ctypes, x->key.s, v) < 0)
                return traza_err_set(x->err, TRAZA_E_NOMEM, "out of memory");
            tz_buf_printf(&x->defs, "1 CT%d %s ", (int)v, ct_alias(pct, a, sizeof a));
            q(&x->defs, strcmp(tname, "0") == 0 ? "0 (type)" : tname);
            tz_buf_putc(&x->defs, '\n');
        }
        x->ctype_of[i] = (int)v;
        int64_t cs = x->m.has_ctimes[i] ? x->m.cstart[i] : t0;
        if (begin_line(x, cs, 0) < 0)
            return -1;
        tz_buf_puts(&x->text, "7 ");
        tm(x, &x->text, cs);
        tz_buf_printf(&x->text, " %s CT%d %s ", cont_id(x, (int32_t)i, a, sizeof a), (int)v,
                      cont_id(x, p->parent, b, sizeof b));
        q(&x->text, p->name);
        end_line(x);
        if (x->m.has_ctimes[i]) {
            if (begin_line(x, x->m.cend[i], 2) < 0)
                return -1;
            tz_buf_puts(&x->text, "8 ");
            tm(x, &x->text, x->m.cend[i]);
            tz_buf_printf(&x->text, " CT%d %s", (int)v, cont_id(x, (int32_t)i, a, sizeof a));
            end_line(x);
        }
    }
    /* the events */
    traza_filter all;
    traza_filter_init(&all);
    traza_filter qf = f ? *f : all;
    qf.with_params = 1;
    traza_cursor *c = traza_query(t, &qf, x->err);
    if (!c)
        return -1;
    const traza_event *ev;
    int rc;
    while ((rc = traza_cursor_next(c, &ev, x->err)) > 0) {
        const traza_event_type *et = traza_trace_event_type(t, ev->type);
        const tz_paje_etype *pe = &x->m.etypes[ev->type];
        int ct = x->ctype_of[ev->producer];
        const char *cid = cont_id(x, ev->producer, a, sizeof a);
        if (et->category == TRAZA_STATE || et->category == TRAZA_PUNCTUAL) {
            int pt = ptype_of(x, et->category == TRAZA_STATE ? 'S' : 'E', ct, pe->ptype, 0, 0, NULL);
            int val = pt < 0 ? -1 : value_of(x, pt, *pe->value ? pe->value : et->name, et->color);
            if (val < 0) {
                rc = -1;
                break;
            }
            if (et->category == TRAZA_STATE) {
                if (state_rec(x, ev->producer, pt, ev, val) < 0) {
                    rc = -1;
                    break;
                }
                continue;
            }
            if (begin_line(x, ev->ts, 1) < 0) {
                rc = -1;
                break;
            }
            tz_buf_puts(&x->text, "13 ");
            tm(x, &x->text, ev->ts);
            tz_buf_printf(&x->text, " T%d %s V%d", pt, cid, val);
            end_line(x);
        } else if (et->category == TRAZA_VARIABLE) {
            int pt = ptype_of(x, 'V', ct, pe->ptype, 0, 0, et->color);
            if (pt < 0 || begin_line(x, ev->ts, 1) < 0) {
                rc = -1;
                break;
            }
            /* Pajé readers (pj_dump, traza) read values in single precision and add
             * them in double: a value that is no float is written as a float plus
             * PajeAddVariable of the rest at the same time, which sums back exactly. */
            double v = (ev->has & TRAZA_HAS_VALUE) ? ev->value : 0.0;
            double head = fabs(v) <= FLT_MAX ? (double)(float)v : v;
            tz_buf_puts(&x->text, "9 ");
            tm(x, &x->text, ev->ts);
            tz_buf_printf(&x->text, " T%d %s %.9g", pt, cid, head);
            end_line(x);
            double rem = v - head;
            for (int k = 0; k < 3 && rem != 0 && fabs(rem) <= FLT_MAX; k++) {
                double part = (double)(float)rem;
                if (begin_line(x, ev->ts, 1) < 0)
                    return -1;
                tz_buf_puts(&x->text, "10 ");
                tm(x, &x->text, ev->ts);
                tz_buf_printf(&x->text, " T%d %s %.9g", pt, cid, part);
                end_line(x);
                rem -= part;
            }
        } else {
            /* link: held by the container the import recorded, else the root */
            int32_t holder = -1;
            const char *value = "v", *key = NULL;
            char kb[32];
            for (uint32_t i = 0; i < ev->nparams; i++) {
                const char *pn = traza_trace_param_def(t, ev->params[i].def)->name;
                if (strcmp(pn, TZ_PAJE_P_CONTAINER) == 0 && ev->params[i].v.kind == TRAZA_PT_INT &&
                    ev->params[i].v.i >= 0 && (size_t)ev->params[i].v.i < np)
                    holder = (int32_t)ev->params[i].v.i;
                else if (strcmp(pn, TZ_PAJE_P_VALUE) == 0 && ev->params[i].v.kind == TRAZA_PT_STRING)
                    value = ev->params[i].v.s;
                else if (strcmp(pn, TZ_PAJE_P_KEY) == 0 && ev->params[i].v.kind == TRAZA_PT_STRING)
                    key = ev->params[i].v.s;
            }
            if (!key || !*key || strpbrk(key, " \t\"#")) {
                snprintf(kb, sizeof kb, "e%lld", (long long)ev->id);
                key = kb;
            }
            int32_t to = (ev->has & TRAZA_HAS_END_PRODUCER) ? ev->end_producer : ev->producer;
            int hct = holder >= 0 ? x->ctype_of[holder] : -1;
            int pt = ptype_of(x, 'L', hct, pe->ptype, ct, x->ctype_of[to], NULL);
            char hb[32], tb[32];
            const char *hid = cont_id(x, holder, hb, sizeof hb);
            if (pt < 0 || begin_line(x, ev->ts, 1) < 0) {
                rc = -1;
                break;
            }
            tz_buf_puts(&x->text, "14 ");
            tm(x, &x->text, ev->ts);
            tz_buf_printf(&x->text, " T%d %s ", pt, hid);
            q(&x->text, value);
            tz_buf_printf(&x->text, " %s ", cid);
            q(&x->text, key);
            end_line(x);
            int64_t end = (ev->has & TRAZA_HAS_END) ? ev->end_ts : ev->ts;
            if (begin_line(x, end, 1) < 0) {
                rc = -1;
                break;
            }
            tz_buf_puts(&x->text, "15 ");
            tm(x, &x->text, end);
            tz_buf_printf(&x->text, " T%d %s ", pt, hid);
            q(&x->text, value);
            tz_buf_printf(&x->text, " %s ", cont_id(x, to, tb, sizeof tb));
            q(&x->text, key);
            end_line(x);
        }
    }
    traza_cursor_free(c);
    if (rc < 0)
        return -1;
    for (size_t i = 0; i < x->ngroups; i++)
        if (emit_states(x, &x->groups[i]) < 0)
            return -1;
    /* Pajé's root ends where the imported one ended */
    if (x->m.paje_root && x->m.has_ctimes[0]) {
        if (begin_line(x, x->m.cend[0], 3) < 0)
            return -1;
        tz_buf_puts(&x->text, "8 ");
        tm(x, &x->text, x->m.cend[0]);
        tz_buf_puts(&x->text, " 0 0");
        end_line(x);
    }
    if (x->defs.oom || x->text.oom || x->key.oom)
        return traza_err_set(x->err, TRAZA_E_NOMEM, "out of memory");
    qsort(x->lines, x->nlines, sizeof *x->lines, cmp_line);
    if (write_out(out, header, sizeof header - 1, x->err) < 0 || write_out(out, x->defs.s, x->defs.len, x->err) < 0)
        return -1;
    for (size_t i = 0; i < x->nlines; i++)
        if (write_out(out, x->text.s + x->lines[i].off, x->lines[i].len, x->err) < 0)
            return -1;
    return 0;
}

static int write_paje(traza_trace *t, const traza_filter *f, FILE *out, traza_err *err)
{
    ex x;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.err = err;
    x.unit = traza_trace_info_of(t)->time_unit;
    tz_buf_init(&x.defs);
    tz_buf_init(&x.text);
    tz_buf_init(&x.key);
    if (tz_paje_meta_load(t, &x.m, err) < 0)
        return -1;
    int rc = export_body(&x, f, out);
    tz_paje_meta_free(&x.m);
    tz_buf_free(&x.defs);
    tz_buf_free(&x.text);
    tz_buf_free(&x.key);
    free(x.lines);
    free(x.ctype_of);
    tz_map_free(&x.ctypes);
    tz_map_free(&x.ptypes);
    tz_map_free(&x.values);
    for (size_t i = 0; i < x.ngroups; i++)
        free(x.groups[i].recs);
    free(x.groups);
    tz_imap_free(&x.group_ids);
    return rc;
}

const traza_exporter tz_exporter_paje = {"paje", "export-paje", "Pajé trace (re-imports to the same model; pj_dump reads it)", write_paje, NULL};
