/* Spatio-temporal best cut partition (Ocelotl): a part is a producer subtree over an
 * interval of slices. For every node and interval, the best of: aggregating it,
 * cutting the interval in two, or splitting the node into its children (a producer
 * with events of its own and children gets a virtual leaf child for its own cell).
 *
 * A tree too large to search (table cells and steps beyond the bounds below) is cut
 * at the deepest level that fits: producers below it count as part of their
 * ancestor on that level, which becomes a leaf of the search whose cell is its whole
 * subtree (its quality still counts every microscopic cell below it). The leaves are
 * aggregated first, as Ocelotl does with hierarchies too large for its search; the
 * parts found are exact for that coarser tree. */
#include "analysis/aggregate_quality.h"
#include "traza/analysis.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bounds of the search: table cells (nodes x slices^2) and steps (x slices). */
#define ST_MAX_CELLS 3e7
#define ST_MAX_STEPS 4e9
/* Deepest producer level followed (as the tree walks elsewhere in this file). */
#define ST_MAX_DEPTH 255

typedef struct stnode {
    int32_t prod;      /* producer id, -1 for the virtual root */
    int own;           /* the node is the cell of `prod` alone */
    double leafcells;  /* cells of a leaf: 1, or those of a subtree cut below it */
    size_t *kids;
    size_t nkids, capk;
    double cells;      /* producers (cells) below */
} stnode;

static double xl(double x) { return x > 0 ? x * log2(x) : 0.0; }

typedef struct stctx {
    stnode *nodes;
    size_t nn, n, nt;
    double *pre;   /* [node][type][k+1] prefix sums */
    double *cpre;  /* [node][k+1] prefix of sum v log v */
    double *best;  /* [node][i*n+j] */
    int *choice;   /* -1 aggregate, -2 children, c >= 0: cut after slice c */
    double *g, *l; /* gain, loss of the best */
    double p;
} stctx;

static void quality(const stctx *c, size_t u, size_t i, size_t j, double *g, double *l)
{
    size_t n = c->n;
    double gain = 0, stot = 0;
    for (size_t t = 0; t < c->nt; t++) {
        const double *pr = c->pre + (u * c->nt + t) * (n + 1);
        double S = pr[j + 1] - pr[i];
        gain += xl(S);
        stot += S;
    }
    const double *cp = c->cpre + u * (n + 1);
    tz_agg_quality(gain, cp[j + 1] - cp[i], fabs(cp[j + 1]) + fabs(cp[i]), stot, c->nodes[u].cells * (double)(j - i + 1), g, l);
}

static void solve(stctx *c, size_t u)
{
    size_t n = c->n;
    stnode *nd = &c->nodes[u];
    double *B = c->best + u * n * n, *G = c->g + u * n * n, *L = c->l + u * n * n;
    int *C = c->choice + u * n * n;
    for (size_t len = 1; len <= n; len++)
        for (size_t i = 0; i + len <= n; i++) {
            size_t j = i + len - 1, ix = i * n + j;
            double g, l;
            quality(c, u, i, j, &g, &l);
            double bv = c->p * g - (1 - c->p) * l;
            int ch = -1;
            double bg = g, bl = l;
            if (nd->nkids) {
                double s = 0, sg = 0, sl = 0;
                for (size_t k = 0; k < nd->nkids; k++) {
                    size_t v = nd->kids[k];
                    s += c->best[v * n * n + ix];
                    sg += c->g[v * n * n + ix];
                    sl += c->l[v * n * n + ix];
                }
                if (s > bv + 1e-9 * (fabs(bv) + 1)) {
                    bv = s; ch = -2; bg = sg; bl = sl;
                }
            }
            for (size_t k = i; k < j; k++) {
                double s = B[i * n + k] + B[(k + 1) * n + j];
                if (s > bv + 1e-9 * (fabs(bv) + 1)) {
                    bv = s; ch = (int)k;
                    bg = G[i * n + k] + G[(k + 1) * n + j];
                    bl = L[i * n + k] + L[(k + 1) * n + j];
                }
            }
            B[ix] = bv; C[ix] = ch; G[ix] = bg; L[ix] = bl;
        }
}

static int collect(const stctx *c, size_t u, size_t i, size_t j, traza_agg_stpart **out, size_t *np, size_t *cap)
{
    size_t n = c->n, ix = i * n + j;
    int ch = c->choice[u * n * n + ix];
    if (ch == -1) {
        if (TZ_GROW(*out, *cap, *np + 1) < 0)
            return -1;
        traza_agg_stpart *p = &(*out)[(*np)++];
        p->node = c->nodes[u].prod;
        p->own = c->nodes[u].own && c->nodes[u].prod >= 0;
        p->first = i;
        p->last = j;
        quality(c, u, i, j, &p->gain, &p->loss);
        return 0;
    }
    if (ch == -2) {
        for (size_t k = 0; k < c->nodes[u].nkids; k++)
            if (collect(c, c->nodes[u].kids[k], i, j, out, np, cap) < 0)
                return -1;
        return 0;
    }
    if (collect(c, u, i, (size_t)ch, out, np, cap) < 0)
        return -1;
    return collect(c, u, (size_t)ch + 1, j, out, np, cap);
}

static int cmp_part(const void *x, const void *y)
{
    const traza_agg_stpart *a = x, *b = y;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    if (a->own != b->own)
        return a->own - b->own;
    return (a->first > b->first) - (a->first < b->first);
}

/* Depth of every producer (roots 0), into depth[0..maxp]. */
static void producer_depths(traza_trace *t, const traza_producer *prods, size_t npr, uint16_t *depth)
{
    for (size_t i = 0; i < npr; i++) {
        size_t d = 0;
        const traza_producer *pp = &prods[i];
        while (pp && pp->parent >= 0 && d < ST_MAX_DEPTH) {
            d++;
            pp = traza_trace_producer(t, pp->parent);
        }
        depth[prods[i].id] = (uint16_t)d;
    }
}

static int fits(double nodes, size_t n) { return nodes * n * n <= ST_MAX_CELLS && nodes * n * n * n <= ST_MAX_STEPS; }

/* Search nodes when producers deeper than d are cut: the virtual root, the kept
 * producers, and an own-cell leaf for each kept producer with kept children and
 * events of its own. */
static double nodes_at(const traza_producer *prods, size_t npr, const uint16_t *depth, const unsigned char *has, size_t d)
{
    double nodes = 1;
    for (size_t i = 0; i < npr; i++) {
        size_t di = depth[prods[i].id];
        nodes += di <= d;
        nodes += di < d && has[prods[i].id] == 3; /* events of its own, and children */
    }
    return nodes;
}

/* The level limit: *cut = SIZE_MAX when the whole tree fits, -1 when even the roots
 * alone do not. has[p]: bit 0 = p has events of its own, bit 1 = p has children. */
static int depth_limit(const traza_producer *prods, size_t npr, const uint16_t *depth, const unsigned char *has, size_t n,
                       size_t *cut, double *nodes)
{
    size_t maxd = 0;
    for (size_t i = 0; i < npr; i++)
        if (depth[prods[i].id] > maxd)
            maxd = depth[prods[i].id];
    for (size_t d = maxd + 1; d-- > 0;) {
        *nodes = nodes_at(prods, npr, depth, has, d);
        if (fits(*nodes, n)) {
            *cut = d == maxd ? SIZE_MAX : d;
            return 0;
        }
    }
    return -1;
}

/* Fills has[] and depth[] (zeroed, maxp + 1 each) and finds the cut (depth_limit);
 * -1 with err when even the roots do not fit. */
static int tree_cut(traza_trace *t, const traza_agg_micro *m, const traza_producer *prods, size_t npr, int32_t maxp,
                    unsigned char *has, uint16_t *depth, size_t *cut, double *nodes, traza_err *err)
{
    for (size_t s = 0; s < m->nseries; s++)
        if (m->producer[s] >= 0 && m->producer[s] <= maxp)
            has[m->producer[s]] |= 1;
    for (size_t i = 0; i < npr; i++)
        if (prods[i].parent >= 0 && prods[i].parent <= maxp)
            has[prods[i].parent] |= 2;
    producer_depths(t, prods, npr, depth);
    if (depth_limit(prods, npr, depth, has, m->nslices, cut, nodes) < 0)
        return traza_err_set(err, TRAZA_E_USAGE, "spatio-temporal aggregation over %zu slices is too large even for the root "
                                                 "producers alone (%.0f nodes): use fewer slices or a producer set", m->nslices, *nodes);
    return 0;
}

static int add_kid(stnode *p, size_t k)
{
    if (TZ_GROW(p->kids, p->capk, p->nkids + 1) < 0)
        return -1;
    p->kids[p->nkids++] = k;
    return 0;
}

int traza_agg_spatial_depth_limit(traza_trace *t, const traza_agg_micro *m, size_t *depth_out, size_t *nodes_out, traza_err *err)
{
    const traza_producer *prods;
    size_t npr = traza_trace_producers(t, &prods);
    int32_t maxp = 0;
    for (size_t i = 0; i < npr; i++)
        if (prods[i].id > maxp)
            maxp = prods[i].id;
    unsigned char *has = calloc((size_t)maxp + 1, 1);
    uint16_t *depth = calloc((size_t)maxp + 1, sizeof *depth);
    if (!has || !depth) {
        free(has);
        free(depth);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    size_t cut;
    double nodes;
    int rc = tree_cut(t, m, prods, npr, maxp, has, depth, &cut, &nodes, err);
    free(has);
    free(depth);
    if (rc < 0)
        return -1;
    *depth_out = cut;
    *nodes_out = (size_t)nodes;
    return cut != SIZE_MAX;
}

int traza_agg_spatial(traza_trace *t, const traza_agg_micro *m, double p, traza_agg_stpart **parts, size_t *nparts,
                      double *gain, double *loss, traza_err *err)
{
    *parts = NULL;
    *nparts = 0;
    const traza_producer *prods;
    size_t npr = traza_trace_producers(t, &prods);
    size_t n = m->nslices;
    int32_t maxp = 0, maxt = 0;
    for (size_t i = 0; i < npr; i++)
        if (prods[i].id > maxp) maxp = prods[i].id;
    for (size_t s = 0; s < m->nseries; s++)
        if (m->type[s] > maxt) maxt = m->type[s];
    stctx c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.p = p;
    int rc = -1;
    size_t *node_of = malloc(((size_t)maxp + 1) * sizeof *node_of);  /* producer -> its node */
    size_t *own_of = malloc(((size_t)maxp + 1) * sizeof *own_of);    /* producer -> node of its own cell */
    int32_t *tix = malloc(((size_t)maxt + 1) * sizeof *tix);
    unsigned char *has = calloc((size_t)maxp + 1, 1); /* bit 0: events of its own; bit 1: children */
    uint16_t *depth = calloc((size_t)maxp + 1, sizeof *depth);
    int32_t *rep = malloc(((size_t)maxp + 1) * sizeof *rep); /* producer -> its node's producer */
    double *cells = calloc((size_t)maxp + 1, sizeof *cells);
    c.nodes = calloc(2 * npr + 1, sizeof *c.nodes);
    if (!node_of || !own_of || !tix || !has || !depth || !rep || !cells || !c.nodes)
        goto oom;
    for (int32_t i = 0; i <= maxt; i++)
        tix[i] = -1;
    for (size_t s = 0; s < m->nseries; s++)
        if (tix[m->type[s]] < 0)
            tix[m->type[s]] = (int32_t)c.nt++;
    size_t cut;
    double nodes;
    if (tree_cut(t, m, prods, npr, maxp, has, depth, &cut, &nodes, err) < 0)
        goto done;
    /* Producers below the cut count as their ancestor on the cut level, whose cell
     * holds every microscopic cell below it (a producer is a cell when it is a leaf
     * or has events of its own). */
    for (size_t i = 0; i < npr; i++) {
        int32_t id = prods[i].id, r = id;
        const traza_producer *pp = &prods[i];
        for (size_t d = depth[id]; cut != SIZE_MAX && d > cut && pp; d--) {
            r = pp->parent;
            pp = traza_trace_producer(t, r);
        }
        rep[id] = r;
        if (cut != SIZE_MAX && depth[id] >= cut)
            cells[r] += !(has[id] & 2) || (has[id] & 1);
    }
    /* Node 0: the virtual root; one node per kept producer; own-cell leaves. */
    c.nodes[0].prod = -1;
    c.nodes[0].leafcells = 1;
    c.nn = 1;
    for (size_t i = 0; i < npr; i++) {
        int32_t id = prods[i].id;
        if (rep[id] != id)
            continue;
        node_of[id] = c.nn;
        c.nodes[c.nn].prod = id;
        c.nodes[c.nn].own = !(has[id] & 2);
        c.nodes[c.nn].leafcells = cut != SIZE_MAX && depth[id] == cut && cells[id] > 0 ? cells[id] : 1;
        own_of[id] = c.nn;
        c.nn++;
    }
    for (size_t i = 0; i < npr; i++) {
        int32_t id = prods[i].id;
        if (rep[id] != id)
            continue;
        int cut_here = cut != SIZE_MAX && depth[id] == cut; /* a leaf of the search */
        if (!cut_here && has[id] == 3) {
            own_of[id] = c.nn;
            c.nodes[c.nn].prod = id;
            c.nodes[c.nn].own = 1;
            c.nodes[c.nn].leafcells = 1;
            if (add_kid(&c.nodes[node_of[id]], c.nn) < 0)
                goto oom;
            c.nn++;
        }
        int32_t par = prods[i].parent;
        if (add_kid(&c.nodes[par >= 0 && par <= maxp ? node_of[par] : 0], node_of[id]) < 0)
            goto oom;
    }
    c.pre = calloc(c.nn * c.nt * (n + 1), sizeof *c.pre);
    c.cpre = calloc(c.nn * (n + 1), sizeof *c.cpre);
    c.best = malloc(c.nn * n * n * sizeof *c.best);
    c.g = malloc(c.nn * n * n * sizeof *c.g);
    c.l = malloc(c.nn * n * n * sizeof *c.l);
    c.choice = malloc(c.nn * n * n * sizeof *c.choice);
    if (!c.pre || !c.cpre || !c.best || !c.g || !c.l || !c.choice)
        goto oom;
    /* Own cells, then sums up the tree (children have larger node ids than... not
     * guaranteed: walk ancestors instead). */
    for (size_t s = 0; s < m->nseries; s++) {
        int32_t pid = m->producer[s];
        if (pid < 0 || pid > maxp)
            continue;
        pid = rep[pid];
        size_t t2 = (size_t)tix[m->type[s]];
        const double *v = m->v + s * n;
        /* The own cell and every ancestor node. */
        size_t chain[256], nc = 0;
        chain[nc++] = own_of[pid];
        if (own_of[pid] != node_of[pid])
            chain[nc++] = node_of[pid];
        const traza_producer *pp = traza_trace_producer(t, pid);
        while (pp && pp->parent >= 0 && nc < 255) {
            chain[nc++] = node_of[pp->parent];
            pp = traza_trace_producer(t, pp->parent);
        }
        chain[nc++] = 0;
        for (size_t a = 0; a < nc; a++) {
            double *pr = c.pre + (chain[a] * c.nt + t2) * (n + 1);
            double *cp = c.cpre + chain[a] * (n + 1);
            for (size_t k = 0; k < n; k++) {
                pr[k + 1] += v[k];
                cp[k + 1] += xl(v[k]);
            }
        }
    }
    for (size_t u = 0; u < c.nn; u++) {
        for (size_t t2 = 0; t2 < c.nt; t2++) {
            double *pr = c.pre + (u * c.nt + t2) * (n + 1);
            for (size_t k = 0; k < n; k++)
                pr[k + 1] += pr[k];
        }
        double *cp = c.cpre + u * (n + 1);
        for (size_t k = 0; k < n; k++)
            cp[k + 1] += cp[k];
    }
    /* Cells below each node and a post order (iterative). */
    size_t *order = malloc(c.nn * sizeof *order), *stack = malloc(c.nn * sizeof *stack);
    unsigned char *seen = calloc(c.nn, 1);
    if (!order || !stack || !seen) {
        free(order); free(stack); free(seen);
        goto oom;
    }
    size_t no = 0, sp = 0;
    stack[sp++] = 0;
    while (sp) {
        size_t u = stack[sp - 1];
        if (!seen[u]) {
            seen[u] = 1;
            for (size_t k = 0; k < c.nodes[u].nkids && sp < c.nn; k++)
                if (!seen[c.nodes[u].kids[k]])
                    stack[sp++] = c.nodes[u].kids[k];
        } else {
            sp--;
            if (seen[u] == 1) {
                seen[u] = 2;
                order[no++] = u;
            }
        }
    }
    for (size_t a = 0; a < no; a++) {
        stnode *nd = &c.nodes[order[a]];
        nd->cells = nd->nkids ? 0 : nd->leafcells;
        for (size_t k = 0; k < nd->nkids; k++)
            nd->cells += c.nodes[nd->kids[k]].cells;
        if (nd->cells < 1)
            nd->cells = 1;
        solve(&c, order[a]);
    }
    free(order); free(stack); free(seen);
    size_t cap = 0;
    /* A single root producer is the whole tree itself: start from it, so that its
     * parts are named after it rather than after the virtual root. */
    size_t top = c.nodes[0].nkids == 1 ? c.nodes[0].kids[0] : 0;
    if (collect(&c, top, 0, n - 1, parts, nparts, &cap) < 0)
        goto oom;
    qsort(*parts, *nparts, sizeof **parts, cmp_part);
    *gain = c.g[top * n * n + n - 1];
    *loss = c.l[top * n * n + n - 1];
    rc = 0;
    goto done;
oom:
    traza_err_set(err, TRAZA_E_NOMEM, "out of memory for the spatio-temporal aggregation");
    free(*parts);
    *parts = NULL;
    *nparts = 0;
done:
    if (c.nodes)
        for (size_t i = 0; i < c.nn; i++)
            free(c.nodes[i].kids);
    free(c.nodes); free(c.pre); free(c.cpre); free(c.best); free(c.g); free(c.l); free(c.choice);
    free(node_of); free(own_of); free(tix); free(has); free(depth); free(rep); free(cells);
    return rc;
}

/* ---- the spatio-temporal p list ---------------------------------------------------- */

typedef struct stlist {
    traza_trace *t;
    const traza_agg_micro *m;
    double thr;
    traza_agg_stentry *e;
    size_t n, cap;
    traza_err *err;
    int failed;
} stlist;

/* One evaluation: p, totals and the parts (the partition's signature). */
typedef struct steval {
    double p, gain, loss;
    traza_agg_stpart *parts;
    size_t np;
} steval;

static int st_eval(stlist *L, double p, steval *o)
{
    o->p = p;
    return traza_agg_spatial(L->t, L->m, p, &o->parts, &o->np, &o->gain, &o->loss, L->err);
}

static int st_same(const steval *a, const steval *b)
{
    if (a->np != b->np)
        return 0;
    for (size_t i = 0; i < a->np; i++)
        if (a->parts[i].node != b->parts[i].node || a->parts[i].own != b->parts[i].own ||
            a->parts[i].first != b->parts[i].first || a->parts[i].last != b->parts[i].last)
            return 0;
    return 1;
}

static void st_add(stlist *L, const steval *e)
{
    if (TZ_GROW(L->e, L->cap, L->n + 1) < 0) {
        L->failed = 1;
        traza_err_set(L->err, TRAZA_E_NOMEM, "out of memory listing p values");
        return;
    }
    traza_agg_stentry *d = &L->e[L->n++];
    d->p = e->p;
    d->gain = e->gain;
    d->loss = e->loss;
    d->nparts = e->np;
}

/* The same bisection as the temporal list: new partitions recorded at the upper end of
 * their bracket once it is narrower than the threshold. */
static void st_bisect(stlist *L, const steval *lo, const steval *hi, int depth)
{
    if (L->failed || st_same(lo, hi))
        return;
    if (hi->p - lo->p <= L->thr || depth > 60) {
        st_add(L, hi);
        return;
    }
    steval mid;
    if (st_eval(L, (lo->p + hi->p) / 2, &mid) < 0) {
        L->failed = 1;
        return;
    }
    st_bisect(L, lo, &mid, depth + 1);
    st_bisect(L, &mid, hi, depth + 1);
    free(mid.parts);
}

int traza_agg_spatial_plist(traza_trace *t, const traza_agg_micro *m, double threshold, traza_agg_stentry **out, size_t *n,
                            size_t *proposed, traza_err *err)
{
    stlist L = {t, m, threshold > 0 ? threshold : 0.001, NULL, 0, 0, err, 0};
    steval a = {0}, b = {0};
    if (st_eval(&L, 0.0, &a) < 0 || st_eval(&L, 1.0, &b) < 0) {
        free(a.parts);
        return -1;
    }
    st_add(&L, &a);
    st_bisect(&L, &a, &b, 0);
    free(a.parts);
    free(b.parts);
    if (L.failed) {
        free(L.e);
        return -1;
    }
    *out = L.e;
    *n = L.n;
    if (proposed)
        *proposed = tz_agg_propose(&L.e[0].gain, &L.e[0].loss, sizeof *L.e, L.n);
    return 0;
}
