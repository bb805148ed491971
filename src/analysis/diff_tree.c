/* The merged call tree of two call-stack traces: per call path, the calls and the
 * total and self times of each side (the call model of `traza diff --by function`). */
#include "traza/diff.h"
#include "traza/callprofile.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
    char *name;
    size_t parent;
    int depth;
    int64_t calls[2], total[2], child[2]; /* ticks of the side's time unit */
} node;

typedef struct build {
    node *nodes;
    size_t n, cap;
    tz_map ids; /* "parent node/function" -> node */
} build;

static int64_t node_of(build *bd, size_t parent, const char *name, int depth, traza_err *err)
{
    char *key = tz_asprintf("%lld/%s", parent == SIZE_MAX ? -1LL : (long long)parent, name);
    int64_t id;
    if (!key)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (tz_map_get(&bd->ids, key, &id)) {
        free(key);
        return id;
    }
    char *nm = tz_strdup(name);
    if (!nm || TZ_GROW(bd->nodes, bd->cap, bd->n + 1) < 0 || tz_map_put(&bd->ids, key, (int64_t)bd->n) < 0) {
        free(nm);
        free(key);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    free(key);
    memset(&bd->nodes[bd->n], 0, sizeof bd->nodes[bd->n]);
    bd->nodes[bd->n].name = nm;
    bd->nodes[bd->n].parent = parent;
    bd->nodes[bd->n].depth = depth;
    return (int64_t)bd->n++;
}

static int scan(build *bd, traza_trace *t, int side, traza_err *err)
{
    traza_callprofile cp;
    if (traza_callprofile_build(t, &cp, NULL, NULL, NULL, err) < 0)
        return -1;
    size_t n = cp.ncalls;
    int64_t *parent = malloc((n ? n : 1) * sizeof *parent), *nid = malloc((n ? n : 1) * sizeof *nid);
    int rc = parent && nid && traza_callprofile_parents(&cp, parent) == 0 ? 0 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) { /* a caller comes before its calls */
        const traza_cp_call *c = &cp.calls[i];
        const traza_event_type *et = traza_trace_event_type(t, c->type);
        size_t up = parent[i] >= 0 ? (size_t)nid[parent[i]] : SIZE_MAX;
        int64_t id = node_of(bd, up, et ? et->name : "?", up == SIZE_MAX ? 0 : bd->nodes[up].depth + 1, err);
        if (id < 0) {
            rc = -1;
            break;
        }
        nid[i] = id;
        node *nd = &bd->nodes[id];
        nd->calls[side]++;
        nd->total[side] += c->end - c->ts;
        if (up != SIZE_MAX)
            bd->nodes[up].child[side] += c->end - c->ts;
    }
    free(parent);
    free(nid);
    traza_callprofile_free(&cp);
    return rc;
}

typedef struct sib {
    size_t parent, idx;
    const char *name;
} sib;

static int cmp_sib(const void *x, const void *y)
{
    const sib *a = x, *b = y;
    if (a->parent != b->parent) /* roots (SIZE_MAX) last: they are looked up separately */
        return a->parent < b->parent ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

/* First index in s[0..n-1] (sorted by parent) of the children of p, n if none. */
static size_t first_child(const sib *s, size_t n, size_t p)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].parent < p) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && s[lo].parent == p ? lo : n;
}

static double span_of(traza_trace *t, double unit)
{
    const traza_trace_info *info = traza_trace_info_of(t);
    return info->max_ts > info->min_ts ? (double)(info->max_ts - info->min_ts) * unit : 0;
}

/* Writes the nodes into out->frames in depth-first order, siblings by name. */
static int order(build *bd, double unit[2], traza_diff_tree *out, traza_err *err)
{
    size_t n = bd->n;
    sib *s = malloc((n ? n : 1) * sizeof *s);
    size_t *stack = malloc((n ? n : 1) * sizeof *stack), *newid = malloc((n ? n : 1) * sizeof *newid);
    out->frames = calloc(n ? n : 1, sizeof *out->frames);
    if (!s || !stack || !newid || !out->frames) {
        free(s);
        free(stack);
        free(newid);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        s[i] = (sib){bd->nodes[i].parent, i, bd->nodes[i].name};
    qsort(s, n, sizeof *s, cmp_sib);
    size_t sp = 0;
    for (size_t i = n; i-- > 0;) /* the roots, pushed in reverse to pop in order */
        if (s[i].parent == SIZE_MAX)
            stack[sp++] = s[i].idx;
    while (sp > 0) {
        size_t id = stack[--sp];
        node *nd = &bd->nodes[id];
        traza_diff_frame *f = &out->frames[out->nframes];
        newid[id] = out->nframes++;
        f->name = nd->name;
        nd->name = NULL;
        f->parent = nd->parent == SIZE_MAX ? SIZE_MAX : newid[nd->parent];
        f->depth = nd->depth;
        f->calls_a = nd->calls[0];
        f->calls_b = nd->calls[1];
        f->total_a = (double)nd->total[0] * unit[0];
        f->total_b = (double)nd->total[1] * unit[1];
        f->self_a = (double)(nd->total[0] - nd->child[0]) * unit[0];
        f->self_b = (double)(nd->total[1] - nd->child[1]) * unit[1];
        if (f->depth > out->max_depth)
            out->max_depth = f->depth;
        size_t c = first_child(s, n, id), e = c;
        while (e < n && s[e].parent == id)
            e++;
        while (e-- > c)
            stack[sp++] = s[e].idx;
    }
    free(s);
    free(stack);
    free(newid);
    return 0;
}

int traza_diff_tree_compute(traza_trace *a, traza_trace *b, traza_diff_tree *out, traza_err *err)
{
    memset(out, 0, sizeof *out);
    build bd = {0};
    tz_map_init(&bd.ids);
    double unit[2] = {pow(10.0, traza_trace_info_of(a)->time_unit), pow(10.0, traza_trace_info_of(b)->time_unit)};
    int rc = scan(&bd, a, 0, err);
    if (rc == 0)
        rc = scan(&bd, b, 1, err);
    if (rc == 0)
        rc = order(&bd, unit, out, err);
    if (rc == 0) {
        out->span_a = span_of(a, unit[0]);
        out->span_b = span_of(b, unit[1]);
    }
    for (size_t i = 0; i < bd.n; i++)
        free(bd.nodes[i].name);
    free(bd.nodes);
    tz_map_free(&bd.ids);
    if (rc < 0)
        traza_diff_tree_free(out);
    return rc;
}

void traza_diff_tree_free(traza_diff_tree *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nframes; i++)
        free(t->frames[i].name);
    free(t->frames);
    memset(t, 0, sizeof *t);
}
