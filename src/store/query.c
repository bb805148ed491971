/* Queries: the generic half of filtering. Categories become type lists, parameter
 * conditions are resolved to definitions and typed values, and PCRE2 regular
 * expressions are applied here, above the backend, so every backend gets them.
 * Every match runs under a match context with match and depth limits (and a JIT
 * stack) so one value costs at most a few milliseconds; a match that fails for any
 * reason other than "no match" fails the query. The filter's stop is consulted after
 * each event a regex was evaluated on, so a caller's deadline holds within one
 * event's evaluations. The time ranges of a saved annotations result (filter.during)
 * are applied here too: each event's [ts, end_ts] against the merged ranges.
 *
 * A regex on the type or the producer is decided once per type name or producer
 * path, not per event: the ids it keeps join the backend filter, so the backend
 * pages and counts (a deep page of a type regex costs what naming the types costs). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "store/store_internal.h"

#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void traza_filter_init(traza_filter *f) { memset(f, 0, sizeof *f); }

typedef struct rx {
    pcre2_code *code;
    pcre2_match_data *md;
    int column;        /* <0: fixed column code; >=0 unused */
    const char *param; /* parameter name for param columns */
    int negate;
    int folded;        /* decided per name: its ids are in the backend filter */
    char *pattern, *colname; /* copies, for error messages */
} rx;

enum { COL_TYPE = -1, COL_PRODUCER = -2, COL_TS = -3, COL_END = -4, COL_CAT = -5, COL_CPU = -6, COL_VALUE = -7, COL_LEVEL = -8, COL_PARAM = -9 };

struct traza_cursor {
    traza_trace *t;
    tz_qstate *q;
    tz_bfilter bf;
    int32_t *types_buf;
    int32_t *defs_buf;
    struct tz_bcond *conds_buf;
    rx *rxs;
    size_t nrx, nlive;        /* regexes, and those applied per event */
    traza_filter fold;        /* the filter with producer regexes folded into its producers */
    int32_t *fold_prods;
    pcre2_match_context *mctx;
    pcre2_jit_stack *jstack;
    traza_time_range *ranges; /* filter.during: sorted, disjoint */
    size_t nranges;
    int post;                 /* regexes or ranges: events are kept or dropped here */
    const traza_stop *stop;
    int64_t read;         /* events read from the backend (for the stop's message) */
    traza_err failed;     /* set when a regex or the stop ended the cursor: every later call repeats it */
    int64_t skip, left;   /* offset/limit applied here when regexes are present */
    traza_event ev;
    int with_params;          /* parameters are read: the type's constant ones are added */
    traza_param *pv;          /* the backend's parameters and the type's constant ones */
    size_t cappv;
    char text[4096];
};

void tz_bfilter_free(int32_t *types, int32_t *defs, struct tz_bcond *conds)
{
    free(types);
    free(defs);
    free(conds);
}

/* A constant value against a condition, in the order both backends compare: numbers
 * by value, texts bytewise, any number before any text. */
static int const_matches(const struct tz_bcond *c, const traza_value *v)
{
    int r;
    if (v->kind == TRAZA_PT_STRING) {
        r = c->numeric ? 1 : strcmp(v->s, c->str);
    } else if (!c->numeric) {
        r = -1;
    } else if (v->kind != TRAZA_PT_DOUBLE && c->num == floor(c->num) && c->num >= -0x1p63 && c->num < 0x1p63) {
        int64_t n = (int64_t)c->num; /* integers exactly, as SQLite compares them */
        r = v->i < n ? -1 : v->i > n;
    } else {
        long double x = v->kind == TRAZA_PT_DOUBLE ? (long double)v->d : (long double)v->i;
        r = x < (long double)c->num ? -1 : x > (long double)c->num;
    }
    switch (c->op) {
    case TRAZA_EQ: return r == 0;
    case TRAZA_NE: return r != 0;
    case TRAZA_LT: return r < 0;
    case TRAZA_GT: return r > 0;
    case TRAZA_LE: return r <= 0;
    case TRAZA_GE: return r >= 0;
    }
    return 0;
}

/* Conditions on definitions that hold one value per type are decided here, once per
 * type: the types whose value matches go to the condition's ctypes (stored in the
 * tail of its slice of `defs`, which they cannot outgrow: a type has one definition
 * of a name) and only the other definitions stay for the database. A condition left
 * with no other definition becomes a type list and leaves the backend filter. */
static int fold_const_conds(const tz_model *m, tz_bfilter *bf, int32_t *defs, int32_t **types_out)
{
    struct tz_bcond *conds = (struct tz_bcond *)bf->conds;
    size_t kept = 0;
    for (size_t c = 0; c < bf->nconds; c++) {
        struct tz_bcond x = conds[c];
        int32_t *slice = defs + (x.defs - defs), *orig = malloc((x.ndefs ? x.ndefs : 1) * sizeof *orig);
        if (!orig)
            return -1;
        size_t nvar = 0, nct = 0, n = x.ndefs;
        memcpy(orig, slice, n * sizeof *orig);
        for (size_t i = 0; i < n; i++) {
            int32_t d = orig[i];
            if (!m->is_const[d])
                slice[nvar++] = d;
            else if (const_matches(&x, &m->consts[d]))
                slice[n - 1 - nct++] = m->defs[d].type_id;
        }
        free(orig);
        x.ndefs = nvar;
        x.ctypes = slice + n - nct;
        x.nctypes = nct;
        if (nvar) {
            conds[kept++] = x;
            continue;
        }
        /* every definition of the name is constant: the condition is a type list */
        int32_t *types = (int32_t *)bf->types;
        if (!types) {
            if (!(types = malloc((m->ntypes ? m->ntypes : 1) * sizeof *types)))
                return -1;
            for (size_t k = 0; k < m->ntypes; k++)
                types[k] = (int32_t)k;
            bf->ntypes = m->ntypes;
            bf->types = *types_out = types;
        }
        size_t nt = 0;
        for (size_t k = 0; k < bf->ntypes; k++)
            for (size_t j = 0; j < nct; j++)
                if (x.ctypes[j] == types[k]) {
                    types[nt++] = types[k];
                    break;
                }
        bf->ntypes = nt;
        if (!nt)
            bf->empty = 1;
    }
    bf->nconds = kept;
    return 0;
}

/* Builds the backend filter. Allocations go into *types_out, *defs_out, *conds_out. */
int tz_make_bfilter(traza_trace *t, const traza_filter *f, tz_bfilter *bf, int32_t **types_out, int32_t **defs_out,
                    struct tz_bcond **conds_out, traza_err *err)
{
    memset(bf, 0, sizeof *bf);
    bf->f = f;
    *types_out = NULL;
    *defs_out = NULL;
    *conds_out = NULL;
    const tz_model *m = &t->model;
    if (f->ntypes || f->categories) {
        int32_t *types = malloc((m->ntypes ? m->ntypes : 1) * sizeof *types);
        if (!types)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        size_t n = 0;
        for (size_t i = 0; i < m->ntypes; i++) {
            int ok = !f->categories || (f->categories & (1u << m->types[i].category));
            if (ok && f->types) {
                ok = 0;
                for (size_t j = 0; j < f->ntypes && !ok; j++)
                    ok = f->types[j] == (int32_t)i;
            }
            if (ok)
                types[n++] = (int32_t)i;
        }
        if (n && n == m->ntypes) { /* every type: no list, which the database would probe per event */
            free(types);
        } else {
            bf->types = types;
            bf->ntypes = n;
            if (!n)
                bf->empty = 1;
            *types_out = types;
        }
    }
    if (f->producers && f->nproducers == 0)
        bf->empty = 1;
    if (f->nconds) {
        struct tz_bcond *conds = calloc(f->nconds, sizeof *conds);
        int32_t *defs = malloc((m->ndefs ? m->ndefs : 1) * f->nconds * sizeof *defs);
        if (!conds || !defs) {
            free(conds);
            free(defs);
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        }
        *conds_out = conds;
        *defs_out = defs;
        size_t used = 0;
        for (size_t c = 0; c < f->nconds; c++) {
            const traza_param_cond *pc = &f->conds[c];
            conds[c].defs = defs + used;
            int all_numeric = 1;
            for (size_t i = 0; i < m->ndefs; i++)
                if (strcmp(m->defs[i].name, pc->name) == 0) {
                    defs[used++] = (int32_t)i;
                    conds[c].ndefs++;
                    if (m->defs[i].ptype == TRAZA_PT_STRING)
                        all_numeric = 0;
                }
            if (!conds[c].ndefs)
                return traza_err_set(err, TRAZA_E_NOTFOUND, "no event type of trace '%s' has a parameter named '%s'", t->info.name, pc->name);
            conds[c].op = pc->op;
            conds[c].str = pc->value;
            double d;
            uint64_t h;
            size_t vl = strlen(pc->value);
            if (all_numeric && tz_parse_double(pc->value, vl, &d) == 0) {
                conds[c].numeric = 1;
                conds[c].num = d;
            } else if (all_numeric && vl > 2 && pc->value[0] == '0' && (pc->value[1] == 'x' || pc->value[1] == 'X') &&
                       tz_parse_u64_hex(pc->value, vl, &h) == 0) {
                conds[c].numeric = 1;
                conds[c].num = (double)(int64_t)h;
            } else if (all_numeric) {
                return traza_err_set(err, TRAZA_E_USAGE, "parameter '%s' is numeric but '%s' is not a number", pc->name, pc->value);
            }
        }
        bf->conds = conds;
        bf->nconds = f->nconds;
        if (m->consts && fold_const_conds(m, bf, defs, types_out) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    if (f->has_from && f->has_to && f->from > f->to)
        bf->empty = 1;
    return 0;
}

static int compile_regexes(traza_cursor *c, const traza_filter *f, traza_err *err)
{
    if (!f->nregexes)
        return 0;
    c->rxs = calloc(f->nregexes, sizeof *c->rxs);
    c->mctx = pcre2_match_context_create(NULL);
    if (!c->rxs || !c->mctx || pcre2_set_match_limit(c->mctx, TRAZA_REGEX_MATCH_LIMIT) != 0 ||
        pcre2_set_depth_limit(c->mctx, TRAZA_REGEX_DEPTH_LIMIT) != 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    /* JIT frames beyond the default 32 KiB machine stack come from here (up to 1 MiB). */
    c->jstack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
    if (!c->jstack)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    pcre2_jit_stack_assign(c->mctx, NULL, c->jstack);
    static const struct { const char *name; int col; } cols[] = {
        {"type", COL_TYPE}, {"producer", COL_PRODUCER}, {"ts", COL_TS}, {"end_ts", COL_END}, {"category", COL_CAT},
        {"cpu", COL_CPU}, {"value", COL_VALUE}, {"level", COL_LEVEL},
    };
    for (size_t i = 0; i < f->nregexes; i++) {
        const traza_regex_cond *r = &f->regexes[i];
        rx *x = &c->rxs[c->nrx++];
        x->negate = r->negate;
        x->pattern = strdup(r->pattern);
        x->colname = strdup(r->column);
        if (!x->pattern || !x->colname)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        x->column = COL_PARAM;
        for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
            if (strcmp(r->column, cols[k].name) == 0)
                x->column = cols[k].col;
        if (x->column == COL_PARAM) {
            int found = 0;
            for (size_t k = 0; k < c->t->model.ndefs && !found; k++)
                found = strcmp(c->t->model.defs[k].name, r->column) == 0;
            if (!found)
                return traza_err_set(err, TRAZA_E_NOTFOUND,
                                     "regex column '%s' is neither a column (type, producer, ts, end_ts, category, cpu, value, level) nor a parameter of this trace",
                                     r->column);
            x->param = r->column;
        }
        int ecode;
        PCRE2_SIZE eoff;
        x->code = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &ecode, &eoff, NULL);
        if (!x->code) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(ecode, msg, sizeof msg);
            return traza_err_set(err, TRAZA_E_USAGE, "regular expression '%s' at offset %zu: %s", r->pattern, (size_t)eoff, (char *)msg);
        }
        pcre2_jit_compile(x->code, PCRE2_JIT_COMPLETE); /* best effort: falls back to the interpreter */
        x->md = pcre2_match_data_create_from_pattern(x->code, NULL);
        if (!x->md)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    return 0;
}

/* The time ranges of the annotations result f->during, sorted and merged. */
static int load_ranges(traza_cursor *c, const traza_filter *f, traza_err *err)
{
    if (!f->during)
        return 0;
    if (traza_result_time_ranges(c->t, f->during, &c->ranges, &c->nranges, err) < 0)
        return -1;
    c->post = 1;
    return 0;
}

/* Whether the event overlaps one of the ranges. */
static int in_ranges(const traza_cursor *c, const traza_event *ev)
{
    int64_t end = (ev->has & TRAZA_HAS_END) && ev->end_ts > ev->ts ? ev->end_ts : ev->ts;
    return traza_time_ranges_overlap(c->ranges, c->nranges, ev->ts, end);
}

/* The text of a column of an event, as regexes see it; NULL if absent. */
static const char *column_text(traza_cursor *c, const rx *x, const traza_event *ev)
{
    char *buf = c->text;
    size_t size = sizeof c->text;
    switch (x->column) {
    case COL_TYPE: return c->t->model.types[ev->type].name;
    case COL_PRODUCER: return traza_trace_producer_path(c->t, ev->producer, buf, size);
    case COL_TS: snprintf(buf, size, "%lld", (long long)ev->ts); return buf;
    case COL_END:
        if (!(ev->has & TRAZA_HAS_END)) return NULL;
        snprintf(buf, size, "%lld", (long long)ev->end_ts);
        return buf;
    case COL_CAT: return traza_category_name(c->t->model.types[ev->type].category);
    case COL_CPU:
        if (!(ev->has & TRAZA_HAS_CPU)) return NULL;
        snprintf(buf, size, "%d", ev->cpu);
        return buf;
    case COL_VALUE:
        if (!(ev->has & TRAZA_HAS_VALUE)) return NULL;
        snprintf(buf, size, "%.17g", ev->value);
        return buf;
    case COL_LEVEL:
        if (!(ev->has & TRAZA_HAS_LEVEL)) return NULL;
        snprintf(buf, size, "%d", ev->level);
        return buf;
    default:
        for (uint32_t i = 0; i < ev->nparams; i++) {
            const traza_param *p = &ev->params[i];
            if (strcmp(c->t->model.defs[p->def].name, x->param) != 0)
                continue;
            switch (p->v.kind) {
            case TRAZA_PT_INT: snprintf(buf, size, "%lld", (long long)p->v.i); break;
            case TRAZA_PT_HEX: snprintf(buf, size, "0x%llx", (unsigned long long)p->v.i); break;
            case TRAZA_PT_DOUBLE: snprintf(buf, size, "%.17g", p->v.d); break;
            case TRAZA_PT_STRING: return p->v.s ? p->v.s : "";
            }
            return buf;
        }
        return NULL;
    }
}

/* 1 when the event passes every regex, 0 when not, -1 when a match could not be
 * decided (limit hit, bad UTF-8 beyond repair, out of memory). */
static int regex_ok(traza_cursor *c, const traza_event *ev, traza_err *err)
{
    for (size_t i = 0; i < c->nrx; i++) {
        rx *x = &c->rxs[i];
        if (x->folded)
            continue;
        const char *s = column_text(c, x, ev);
        int hit = 0;
        if (s) {
            int rc = pcre2_match(x->code, (PCRE2_SPTR)s, strlen(s), 0, 0, x->md, c->mctx);
            if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
                PCRE2_UCHAR msg[256];
                pcre2_get_error_message(rc, msg, sizeof msg);
                char why[160] = "";
                if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT)
                    snprintf(why, sizeof why, " (the limit of %u %s was hit: make the expression simpler or more specific)",
                             rc == PCRE2_ERROR_MATCHLIMIT ? TRAZA_REGEX_MATCH_LIMIT : TRAZA_REGEX_DEPTH_LIMIT,
                             rc == PCRE2_ERROR_MATCHLIMIT ? "backtracking steps" : "nested backtracking points");
                return traza_err_set(err, TRAZA_E_UNSUPPORTED,
                                     "regular expression '%s' on %s could not be evaluated on event %lld: %s%s", x->pattern,
                                     x->colname, (long long)ev->id, (char *)msg, why);
            }
            hit = rc >= 0;
        }
        if (hit == x->negate)
            return 0;
    }
    return 1;
}

/* Whether a name passes regex x: 1, 0, or -1 when the match cannot be decided (the
 * regex then stays per event, where the failure is reported with its event). */
static int name_ok(traza_cursor *c, rx *x, const char *name)
{
    int rc = pcre2_match(x->code, (PCRE2_SPTR)name, strlen(name), 0, 0, x->md, c->mctx);
    if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
        return -1;
    return (rc >= 0) != x->negate;
}

/* Type regexes narrow the backend's type list; producer regexes its producer list
 * (through c->fold, a copy of the filter that owns the new list). */
static int fold_name_regexes(traza_cursor *c, const traza_filter *f, traza_err *err)
{
    const tz_model *m = &c->t->model;
    for (size_t i = 0; i < c->nrx; i++) {
        rx *x = &c->rxs[i];
        if (x->column == COL_TYPE) {
            int32_t *keep = malloc((m->ntypes ? m->ntypes : 1) * sizeof *keep);
            if (!keep)
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            size_t n = 0;
            int undecided = 0;
            for (size_t k = 0; k < m->ntypes && !undecided; k++) {
                int in = !c->bf.types;
                for (size_t j = 0; !in && j < c->bf.ntypes; j++)
                    in = c->bf.types[j] == (int32_t)k;
                int ok = in ? name_ok(c, x, m->types[k].name) : 0;
                undecided = ok < 0;
                if (ok > 0)
                    keep[n++] = (int32_t)k;
            }
            if (undecided) {
                free(keep);
                continue;
            }
            free(c->types_buf);
            c->bf.types = keep;
            c->types_buf = keep;
            c->bf.ntypes = n;
            c->bf.empty |= n == 0;
            x->folded = 1;
        } else if (x->column == COL_PRODUCER) {
            const traza_filter *cur = c->bf.f;
            const traza_producer *prods;
            size_t np = traza_trace_producers(c->t, &prods), n = 0;
            size_t base = cur->producers ? cur->nproducers : np;
            int32_t *keep = malloc((base ? base : 1) * sizeof *keep);
            if (!keep)
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            int undecided = 0;
            for (size_t k = 0; k < base && !undecided; k++) {
                int32_t id = cur->producers ? cur->producers[k] : prods[k].id;
                const char *path = traza_trace_producer_path(c->t, id, c->text, sizeof c->text);
                int ok = path ? name_ok(c, x, path) : x->negate;
                undecided = ok < 0;
                if (ok > 0)
                    keep[n++] = id;
            }
            if (undecided) {
                free(keep);
                continue;
            }
            if (c->bf.f != &c->fold)
                c->fold = *f;
            free(c->fold_prods);
            c->fold_prods = keep;
            c->fold.producers = keep;
            c->fold.nproducers = n;
            c->bf.f = &c->fold;
            c->bf.empty |= n == 0;
            x->folded = 1;
        }
    }
    for (size_t i = 0; i < c->nrx; i++)
        c->nlive += !c->rxs[i].folded;
    return 0;
}

traza_cursor *traza_query(traza_trace *t, const traza_filter *f, traza_err *err)
{
    traza_cursor *c = calloc(1, sizeof *c);
    if (!c) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    c->t = t;
    c->stop = f->stop && f->stop->fn ? f->stop : NULL;
    if (tz_make_bfilter(t, f, &c->bf, &c->types_buf, &c->defs_buf, &c->conds_buf, err) < 0 || compile_regexes(c, f, err) < 0 ||
        fold_name_regexes(c, f, err) < 0 || load_ranges(c, f, err) < 0) {
        traza_cursor_free(c);
        return NULL;
    }
    c->post |= c->nlive > 0;
    if (c->post) {
        c->skip = f->offset;
        c->left = f->limit ? f->limit : -1;
        c->bf.offset = 0;
        c->bf.limit = 0;
    } else {
        c->bf.offset = f->offset;
        c->bf.limit = f->limit;
        c->left = -1;
    }
    if (!c->bf.empty) {
        /* Parameter regexes need the parameters loaded. */
        const traza_filter *cur = c->bf.f;
        traza_filter f2 = *cur;
        for (size_t i = 0; i < c->nrx; i++)
            if (c->rxs[i].column == COL_PARAM)
                f2.with_params = 1;
        c->with_params = f2.with_params;
        c->bf.f = &f2;
        int rc = t->ws->b->ops->q_open(t->st, &c->bf, &c->q, err);
        c->bf.f = cur;
        if (rc < 0) {
            traza_cursor_free(c);
            return NULL;
        }
    }
    return c;
}

/* Adds the parameters the event's type holds once (tz_model.consts) to those the
 * backend read, in definition order as the backend gives them. */
static int add_consts(traza_cursor *c, traza_err *err)
{
    const tz_model *m = &c->t->model;
    if (!m->tconst_start || c->ev.type < 0 || (size_t)c->ev.type >= m->ntypes)
        return 0;
    size_t a = m->tconst_start[c->ev.type], b = m->tconst_start[c->ev.type + 1], n = c->ev.nparams;
    if (a == b)
        return 0;
    if (TZ_GROW(c->pv, c->cappv, n + (b - a)) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    size_t k = 0, i = 0;
    for (; a < b || i < n; k++) /* merge: both lists are in definition order */
        if (i < n && (a == b || c->ev.params[i].def < m->tconst[a]))
            c->pv[k] = c->ev.params[i++];
        else
            c->pv[k] = (traza_param){m->tconst[a], m->consts[m->tconst[a]]}, a++;
    c->ev.params = c->pv;
    c->ev.nparams = (uint32_t)k;
    return 0;
}

int traza_cursor_next(traza_cursor *c, const traza_event **ev, traza_err *err)
{
    if (c->failed.code != TRAZA_OK) {
        if (err)
            *err = c->failed;
        return -1;
    }
    if (!c->q || c->left == 0)
        return 0;
    for (;;) {
        int rc = c->t->ws->b->ops->q_next(c->q, &c->ev, err);
        if (rc == 0)
            c->left = 0; /* stays at the end (stepping SQLite again would rerun the query) */
        if (rc <= 0)
            return rc;
        if (c->with_params && add_consts(c, err) < 0)
            return -1;
        /* The backend knows integers; the model knows which are addresses. */
        for (uint32_t i = 0; i < c->ev.nparams; i++) {
            traza_param *p = (traza_param *)&c->ev.params[i];
            if (p->v.kind == TRAZA_PT_INT && (size_t)p->def < c->t->model.ndefs && c->t->model.defs[p->def].ptype == TRAZA_PT_HEX)
                p->v.kind = TRAZA_PT_HEX;
        }
        if (c->post) {
            c->read++;
            int ok = c->nranges && !in_ranges(c, &c->ev) ? 0 : regex_ok(c, &c->ev, &c->failed);
            if (ok >= 0 && c->stop && c->stop->fn(c->stop->ctx, TRAZA_STAGE_READ))
                ok = traza_err_set(&c->failed, TRAZA_E_CANCELLED, "the query was stopped after %lld events were read",
                                   (long long)c->read);
            if (ok < 0) {
                if (err)
                    *err = c->failed;
                return -1;
            }
            if (!ok)
                continue;
            if (c->skip > 0) {
                c->skip--;
                continue;
            }
            if (c->left > 0)
                c->left--;
        }
        *ev = &c->ev;
        return 1;
    }
}

void traza_cursor_free(traza_cursor *c)
{
    if (!c)
        return;
    if (c->q)
        c->t->ws->b->ops->q_close(c->q);
    for (size_t i = 0; i < c->nrx; i++) {
        pcre2_match_data_free(c->rxs[i].md);
        pcre2_code_free(c->rxs[i].code);
        free(c->rxs[i].pattern);
        free(c->rxs[i].colname);
    }
    free(c->rxs);
    free(c->fold_prods);
    free(c->ranges);
    free(c->pv);
    pcre2_match_context_free(c->mctx);
    pcre2_jit_stack_free(c->jstack);
    tz_bfilter_free(c->types_buf, c->defs_buf, c->conds_buf);
    free(c);
}

int64_t traza_count(traza_trace *t, const traza_filter *f, traza_err *err)
{
    if (f->nregexes || f->during) {
        traza_filter f2 = *f;
        f2.offset = 0;
        f2.limit = 0;
        traza_cursor *c = traza_query(t, &f2, err);
        if (!c)
            return -1;
        if (!c->post) { /* every regex folded into the backend filter */
            int64_t n = c->bf.empty ? 0 : t->ws->b->ops->q_count(t->st, &c->bf, err);
            traza_cursor_free(c);
            return n;
        }
        int64_t n = 0;
        const traza_event *ev;
        int rc;
        while ((rc = traza_cursor_next(c, &ev, err)) > 0)
            n++;
        traza_cursor_free(c);
        return rc < 0 ? -1 : n;
    }
    tz_bfilter bf;
    int32_t *types, *defs;
    struct tz_bcond *conds;
    if (tz_make_bfilter(t, f, &bf, &types, &defs, &conds, err) < 0) {
        tz_bfilter_free(types, defs, conds);
        return -1;
    }
    int64_t n = bf.empty ? 0 : t->ws->b->ops->q_count(t->st, &bf, err);
    tz_bfilter_free(types, defs, conds);
    return n;
}
