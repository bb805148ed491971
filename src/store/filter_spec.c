/* Filters built from what a front end's user wrote: event types and producers by
 * name or id, producer subtrees, categories by name, a saved result, the time ranges
 * of saved annotations, regular expressions on columns. The CLI and the
 * server parse their own syntax (options, query strings) into a traza_filter_spec and
 * both resolve it here. */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct ids {
    int32_t *v;
    size_t n, cap;
} ids;

static int ids_add(ids *a, int32_t id, traza_err *err)
{
    if (TZ_GROW(a->v, a->cap, a->n + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    a->v[a->n++] = id;
    return 0;
}

static int resolve_types(traza_trace *t, const traza_filter_spec *s, ids *out, traza_err *err)
{
    const char *trace = traza_trace_info_of(t)->name;
    for (size_t i = 0; i < s->ntype_names; i++) {
        const traza_event_type *ty = traza_trace_event_type_by_name(t, s->type_names[i]);
        if (!ty)
            return traza_err_set(err, TRAZA_E_NOTFOUND, "trace '%s' has no event type '%s'", trace, s->type_names[i]);
        if (ids_add(out, ty->id, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < s->ntype_ids; i++) {
        if (!traza_trace_event_type(t, s->type_ids[i]))
            return traza_err_set(err, TRAZA_E_NOTFOUND, "trace '%s' has no event type %d", trace, s->type_ids[i]);
        if (ids_add(out, s->type_ids[i], err) < 0)
            return -1;
    }
    return 0;
}

/* The producer id, or with subtree the producer and its descendants. */
static int add_producer(traza_trace *t, int32_t id, int subtree, ids *out, traza_err *err)
{
    if (!subtree)
        return ids_add(out, id, err);
    size_t n = out->n;
    int rc = traza_trace_producer_subtree(t, id, &out->v, &n, err);
    out->n = n;
    if (out->cap < n)
        out->cap = n;
    return rc < 0 ? -1 : 0;
}

static int resolve_producers(traza_trace *t, const traza_filter_spec *s, ids *out, traza_err *err)
{
    const char *trace = traza_trace_info_of(t)->name;
    for (size_t i = 0; i < s->nproducer_names; i++) {
        const traza_producer *p = traza_trace_producer_find(t, s->producer_names[i]);
        if (!p)
            return traza_err_set(err, TRAZA_E_NOTFOUND,
                                 "trace '%s' has no producer '%s' (or the name is ambiguous: give its path a/b/c)", trace,
                                 s->producer_names[i]);
        if (add_producer(t, p->id, s->subtree, out, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < s->nproducer_ids; i++) {
        if (!traza_trace_producer(t, s->producer_ids[i]))
            return traza_err_set(err, TRAZA_E_NOTFOUND, "trace '%s' has no producer %d", trace, s->producer_ids[i]);
        if (add_producer(t, s->producer_ids[i], s->subtree, out, err) < 0)
            return -1;
    }
    return 0;
}

static int resolve_categories(const traza_filter_spec *s, unsigned *mask, traza_err *err)
{
    for (size_t i = 0; i < s->ncategories; i++) {
        int c = traza_category_parse(s->categories[i]);
        if (c < 0)
            return traza_err_set(err, TRAZA_E_USAGE, "unknown category '%.32s' (expected punctual, state, link or variable)",
                                 s->categories[i]);
        *mask |= 1u << c;
    }
    return 0;
}

/* Keeps the producers of the producer set `id`: those of *prod when it has some. */
static int keep_producer_set(traza_trace *t, int64_t id, ids *prod, traza_err *err)
{
    int32_t *set = NULL;
    size_t n = 0;
    if (traza_result_producers(t, id, &set, &n, err) < 0)
        return -1;
    if (prod->n) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < prod->n; j++)
                if (set[i] == prod->v[j]) {
                    set[k++] = set[i];
                    break;
                }
        n = k;
    }
    free(prod->v);
    prod->v = set;
    prod->n = prod->cap = n;
    return 0;
}

/* The kind and id of the saved result `ref` (traza_result_input), and its node. */
static int input_kind(traza_trace *t, const char *ref, traza_result_kind *kind, int64_t *id, int64_t *node, traza_err *err)
{
    traza_result_info info;
    memset(&info, 0, sizeof info);
    *node = 0;
    if (traza_result_input(t, ref, &info, node, err) < 0)
        return -1;
    *kind = info.kind;
    *id = info.id;
    traza_result_info_clear(&info);
    return 0;
}

/* The result of the spec: an event set or a group (GROUP/NODE: one node's subtree)
 * into *event_set and *node, or a producer set's producers into prod (*none set when
 * it has none). */
static int resolve_result(traza_trace *t, const traza_filter_spec *s, int64_t *event_set, int64_t *node, ids *prod,
                          int *none, traza_err *err)
{
    traza_result_kind kind;
    int64_t id, at;
    if (input_kind(t, s->result, &kind, &id, &at, err) < 0)
        return -1;
    if (kind == TRAZA_RES_EVENT_SET || kind == TRAZA_RES_GROUP) {
        if (*event_set && *event_set != id)
            return traza_err_set(err, TRAZA_E_USAGE, "result '%.64s' is not the event set %lld", s->result,
                                 (long long)*event_set);
        *event_set = id;
        *node = at;
        return 0;
    }
    if (kind != TRAZA_RES_PRODUCER_SET || !s->producer_sets)
        return traza_err_set(err, TRAZA_E_USAGE, "result '%.64s' is a %s: only an event set or a group%s restricts events",
                             s->result, traza_result_kind_name(kind), s->producer_sets ? " (or a producer set, producers)" : "");
    if (keep_producer_set(t, id, prod, err) < 0)
        return -1;
    *none = prod->n == 0;
    return 0;
}

/* The annotations result named by spec->during: its id into *id and the span of its
 * time ranges into *lo, *hi. A result of another kind, or annotations without a range,
 * are not time ranges. */
static int resolve_during(traza_trace *t, const traza_filter_spec *s, int64_t *id, int64_t *lo, int64_t *hi, traza_err *err)
{
    traza_result_kind kind;
    int64_t node;
    if (input_kind(t, s->during, &kind, id, &node, err) < 0)
        return -1;
    if (kind != TRAZA_RES_ANNOTATION || node)
        return traza_err_set(err, TRAZA_E_USAGE, "result '%.64s' is not a set of time ranges (%s%s)", s->during,
                             node ? "a part of a result of kind " : "its kind is ", traza_result_kind_name(kind));
    traza_annotation *a = NULL;
    size_t n = 0, ranges = 0;
    if (traza_result_annotations(t, *id, &a, &n, err) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (a[i].has_range) {
            *lo = ranges && *lo < a[i].from ? *lo : a[i].from;
            *hi = ranges && *hi > a[i].to ? *hi : a[i].to;
            ranges++;
        }
    traza_annotations_free(a, n);
    if (!ranges)
        return traza_err_set(err, TRAZA_E_USAGE, "result '%.64s' is not a set of time ranges (none of its %zu annotations has one)",
                             s->during, n);
    return 0;
}

int traza_regex_cond_parse(const char *text, traza_regex_cond *out, char **column, traza_err *err)
{
    *column = NULL;
    const char *t = strchr(text, '~');
    if (!t || t == text || (t == text + 1 && text[0] == '!'))
        return traza_err_set(err, TRAZA_E_USAGE, "regular expression condition '%.64s': expected COLUMN~REGEX or COLUMN!~REGEX",
                             text);
    int neg = t[-1] == '!';
    char *col = tz_strndup(text, (size_t)(t - text - neg));
    if (!col)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    *column = col;
    out->column = col;
    out->pattern = t + 1;
    out->negate = neg;
    return 0;
}

int traza_param_cond_parse(const char *text, traza_param_cond *out, char **copy, traza_err *err)
{
    static const struct { const char *op; traza_cmp c; } ops[] = {
        {"!=", TRAZA_NE}, {"<=", TRAZA_LE}, {">=", TRAZA_GE}, {"=", TRAZA_EQ}, {"<", TRAZA_LT}, {">", TRAZA_GT},
    };
    *copy = NULL;
    const char *best = NULL;
    size_t bi = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) { /* the first operator; the longer at one place */
        const char *p = strstr(text, ops[i].op);
        if (p && (!best || p < best || (p == best && strlen(ops[i].op) > strlen(ops[bi].op)))) {
            best = p;
            bi = i;
        }
    }
    if (!best || best == text)
        return traza_err_set(err, TRAZA_E_USAGE,
                             "parameter condition '%.64s': expected PARAM OP VALUE with OP one of = != < > <= >=", text);
    char *s = tz_strndup(text, strlen(text));
    if (!s)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    char *name_end = s + (best - text), *val = name_end + strlen(ops[bi].op);
    while (name_end > s && name_end[-1] == ' ')
        name_end--;
    *name_end = '\0';
    while (*val == ' ')
        val++;
    *copy = s;
    out->name = s;
    out->op = ops[bi].c;
    out->value = val;
    return 0;
}

int traza_filter_resolve(traza_trace *t, const traza_filter_spec *spec, traza_filter *f, int32_t **types,
                         int32_t **producers, traza_err *err)
{
    ids ty = {0}, prod = {0};
    unsigned categories = f->categories;
    int64_t event_set = f->event_set, node = f->event_set_node, during = f->during, lo = 0, hi = 0;
    int none = 0;
    if (resolve_types(t, spec, &ty, err) < 0 || resolve_producers(t, spec, &prod, err) < 0 ||
        resolve_categories(spec, &categories, err) < 0 ||
        (spec->result && *spec->result && resolve_result(t, spec, &event_set, &node, &prod, &none, err) < 0) ||
        (spec->during && *spec->during && resolve_during(t, spec, &during, &lo, &hi, err) < 0)) {
        free(ty.v);
        free(prod.v);
        return -1;
    }
    *types = ty.v;
    *producers = prod.v;
    f->types = ty.v;
    f->ntypes = ty.n;
    f->producers = prod.v;
    f->nproducers = prod.n;
    f->categories = categories;
    f->event_set = event_set;
    f->event_set_node = node;
    f->during = during;
    if (spec->during && *spec->during && !f->has_from && !f->has_to) {
        /* the store reads only the span of the ranges; the ranges themselves are
         * checked per event (query.c) */
        f->has_from = f->has_to = 1;
        f->from = lo;
        f->to = hi;
        f->overlap = 1;
    }
    f->regexes = spec->regexes;
    f->nregexes = spec->nregexes;
    if (none) { /* no producer: an empty window (a filter without producers means all) */
        f->has_from = f->has_to = 1;
        f->from = f->to = INT64_MAX;
    }
    return 0;
}
