/* Online Sequitur / ReSequitur engine. See engine.h. */
#include "grammar/engine.h"

#include <stdlib.h>
#include <string.h>
#include "util/util.h"

#define N(i) (e->nodes[(i)])

#if defined(__GNUC__)
#define TZ_AINLINE __attribute__((always_inline))
#define TZ_NOINLINE __attribute__((noinline))
#define TZ_LIKELY(x) __builtin_expect(!!(x), 1)
#define TZ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TZ_AINLINE
#define TZ_NOINLINE
#define TZ_LIKELY(x) (x)
#define TZ_UNLIKELY(x) (x)
#endif

/* ---- allocation -------------------------------------------------------------- */

#define KIND(i) (N(i).s & 3u)
#define ID(i) (N(i).s >> 2)
#define CODE(id, k) ((uint32_t)(id) << 2 | (k))

/* A node from the end of the array (the free list is empty). */
static uint32_t node_grow(gengine *e)
{
    if (e->nnodes >= GNIL - 1 || TZ_GROW(e->nodes, e->capnodes, e->nnodes + 1) < 0 ||
        (e->rle && TZ_GROW(e->cnt, e->capcnt, e->nnodes + 1) < 0)) {
        e->oom = 1;
        return GNIL;
    }
    return (uint32_t)e->nnodes++;
}

static uint32_t node_new(gengine *e, uint32_t code, uint64_t c)
{
    uint32_t i;
    if (e->freenode != GNIL) {
        i = e->freenode;
        e->freenode = N(i).n;
    } else if ((i = node_grow(e)) == GNIL) {
        return GNIL;
    }
    N(i).s = code;
    if (e->rle)
        e->cnt[i] = c;
    N(i).p = N(i).n = GNIL;
    N(i).slot = GNIL;
    if ((code & 3u) == GK_RULE)
        e->rules[code >> 2].uses += c;
    return i;
}

static void node_release(gengine *e, uint32_t i)
{
    N(i).s = GK_DEAD;
    N(i).p = GNIL;
    N(i).n = e->freenode;
    e->freenode = i;
}

static uint32_t rule_new(gengine *e)
{
    uint32_t r;
    if (e->nfreerules) {
        r = e->freerules[--e->nfreerules];
    } else {
        if (e->nrules >= GE_MAXID || TZ_GROW(e->rules, e->caprules, e->nrules + 1) < 0) {
            e->oom = 1;
            return GNIL;
        }
        r = (uint32_t)e->nrules++;
    }
    uint32_t g = node_new(e, CODE(r, GK_GUARD), 1);
    if (g == GNIL)
        return GNIL;
    N(g).p = N(g).n = g;
    grule *R = &e->rules[r];
    R->guard = g;
    R->pinned = 0;
    R->uses = 0;
    R->live = 1;
    return r;
}

static void rule_release(gengine *e, uint32_t r)
{
    e->rules[r].live = 0;
    if (e->nfreerules >= e->capfreerules && TZ_GROW(e->freerules, e->capfreerules, e->nfreerules + 1) < 0) {
        e->oom = 1; /* the id is simply not reused */
        return;
    }
    e->freerules[e->nfreerules++] = r;
}

static inline uint64_t imix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ULL;
    return x ^ (x >> 29);
}

/* Dense id of terminal value v (GNIL on out of memory). */
static uint32_t intern_slow(gengine *e, uint64_t v);

static inline uint32_t intern(gengine *e, uint64_t v)
{
    size_t k = (size_t)((v * 0x9E3779B97F4A7C15ULL) >> 52); /* 4096 entries */
    if (TZ_LIKELY(e->ici[k] && e->icv[k] == v))
        return e->ici[k] - 1;
    uint32_t id = intern_slow(e, v);
    if (id != GNIL) {
        e->icv[k] = v;
        e->ici[k] = id + 1;
    }
    return id;
}

static uint32_t intern_slow(gengine *e, uint64_t v)
{
    size_t mask = e->imapcap - 1;
    size_t i = imix(v) & mask;
    for (; e->imap[i]; i = (i + 1) & mask)
        if (e->tval[e->imap[i] - 1] == v)
            return e->imap[i] - 1;
    if (e->ntval >= GE_MAXID || TZ_GROW(e->tval, e->captval, e->ntval + 1) < 0) {
        e->oom = 1;
        return GNIL;
    }
    uint32_t id = (uint32_t)e->ntval++;
    e->tval[id] = v;
    e->imap[i] = id + 1;
    if (e->ntval * 2 > e->imapcap) {
        size_t ncap = e->imapcap * 2;
        uint32_t *nm = calloc(ncap, sizeof *nm);
        if (!nm) {
            e->oom = 1;
            return GNIL;
        }
        for (size_t k = 0; k < e->ntval; k++) {
            size_t j = imix(e->tval[k]) & (ncap - 1);
            while (nm[j])
                j = (j + 1) & (ncap - 1);
            nm[j] = (uint32_t)k + 1;
        }
        free(e->imap);
        e->imap = nm;
        e->imapcap = ncap;
    }
    return id;
}

/* ---- digram table -------------------------------------------------------------- */

static inline int is_guard(gengine *e, uint32_t i) { return KIND(i) == GK_GUARD; }

static inline int symeq(gengine *e, uint32_t a, uint32_t b)
{
    return KIND(a) < GK_GUARD && N(a).s == N(b).s;
}

static int tgrow(gengine *e)
{
    size_t ncap = e->tabcap ? e->tabcap * 2 : 1024;
    if (ncap > ((size_t)1 << 32)) {
        e->oom = 1;
        return -1;
    }
    gslot *nt = malloc(ncap * sizeof *nt);
    if (!nt) {
        e->oom = 1;
        return -1;
    }
    for (size_t i = 0; i < ncap; i++)
        nt[i].node = GNIL;
    for (size_t i = 0; i < e->tabcap; i++) {
        if (e->tab[i].node == GNIL)
            continue;
        size_t j = e->tab[i].h & (ncap - 1);
        while (nt[j].node != GNIL)
            j = (j + 1) & (ncap - 1);
        nt[j] = e->tab[i];
        e->nodes[nt[j].node].slot = (uint32_t)j;
    }
    free(e->tab);
    e->tab = nt;
    e->tabcap = ncap;
    return 0;
}

/* Backward-shift deletion after slot i was emptied. */
static void tshift(gengine *e, size_t i)
{
    size_t mask = e->tabcap - 1, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (e->tab[j].node == GNIL)
            return;
        size_t home = e->tab[j].h & mask;
        /* move j back to i if its home is not in (i, j] cyclically */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            e->tab[i] = e->tab[j];
            N(e->tab[i].node).slot = (uint32_t)i;
            e->tab[j].node = GNIL;
            i = j;
        }
    }
}

/* Removes the entry in slot i, owned by node x. */
static inline TZ_AINLINE void tremove_slot(gengine *e, uint32_t x, size_t i)
{
    N(x).slot = GNIL;
    e->tab[i].node = GNIL;
    e->tabcount--;
    if (e->tab[(i + 1) & (e->tabcap - 1)].node != GNIL)
        tshift(e, i);
}

/* The hot operations, once per mode. */
#define RLE 0
#define OPSFX _seq
#include "grammar/engine_ops.h"
#undef RLE
#undef OPSFX
#define RLE 1
#define OPSFX _rle
#include "grammar/engine_ops.h"
#undef RLE
#undef OPSFX

/* ---- public (internal) API ---------------------------------------------------------- */

int ge_init(gengine *e, int rle)
{
    memset(e, 0, sizeof *e);
    e->rle = rle;
    e->freenode = GNIL;
    e->imapcap = 1024;
    e->imap = calloc(e->imapcap, sizeof *e->imap);
    if (!e->imap || tgrow(e) < 0) {
        ge_free(e);
        return -1;
    }
    return 0;
}

void ge_free(gengine *e)
{
    free(e->nodes);
    free(e->cnt);
    free(e->rules);
    free(e->freerules);
    free(e->tab);
    free(e->tval);
    free(e->imap);
    memset(e, 0, sizeof *e);
}

uint32_t ge_root(gengine *e)
{
    uint32_t r = rule_new(e);
    if (r != GNIL)
        e->rules[r].pinned = 2;
    return r;
}

int ge_push(gengine *e, uint32_t root, uint64_t v, uint32_t kind, uint64_t cnt)
{
    return e->rle ? push_rle(e, root, v, kind, cnt) : push_seq(e, root, v, kind, cnt);
}

void ge_drop_root(gengine *e, uint32_t root)
{
    uint32_t g = e->rules[root].guard;
    uint32_t x = N(g).n;
    if (KIND(x) == GK_RULE)
        e->rules[ID(x)].uses -= GCNT(e, x);
    delete_digram_rle(e, N(x).p);
    delete_digram_rle(e, x);
    node_release(e, x);
    node_release(e, g);
    rule_release(e, root);
}

traza_grammar *ge_export(gengine *e, uint32_t start, traza_galgo algo, traza_err *err)
{
    if (e->oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        return NULL;
    }
    uint32_t *map = malloc((e->nrules ? e->nrules : 1) * sizeof *map);
    uint32_t *order = malloc((e->nrules ? e->nrules : 1) * sizeof *order);
    traza_grammar *g = calloc(1, sizeof *g);
    if (!map || !order || !g)
        goto oom;
    for (size_t i = 0; i < e->nrules; i++)
        map[i] = GNIL;
    size_t nord = 0, nsyms = 0;
    map[start] = 0;
    order[nord++] = start;
    for (size_t qi = 0; qi < nord; qi++) {
        uint32_t r = order[qi], gd = e->rules[r].guard;
        for (uint32_t x = N(gd).n; x != gd; x = N(x).n) {
            nsyms++;
                if (KIND(x) == GK_RULE && map[ID(x)] == GNIL) {
                map[ID(x)] = (uint32_t)nord;
                order[nord++] = ID(x);
            }
        }
    }
    g->algo = algo;
    g->nrules = (uint32_t)nord;
    g->off = malloc((nord + 1) * sizeof *g->off);
    g->syms = malloc((nsyms ? nsyms : 1) * sizeof *g->syms);
    g->is_cycle = calloc(nord, 1);
    if (!g->off || !g->syms || !g->is_cycle)
        goto oom;
    size_t k = 0;
    for (size_t qi = 0; qi < nord; qi++) {
        uint32_t r = order[qi], gd = e->rules[r].guard;
        g->off[qi] = k;
        g->is_cycle[qi] = qi > 0 && e->rules[r].pinned;
        for (uint32_t x = N(gd).n; x != gd; x = N(x).n) {
            g->syms[k].is_rule = KIND(x) == GK_RULE;
            g->syms[k].value = g->syms[k].is_rule ? map[ID(x)] : e->tval[ID(x)];
            g->syms[k].rep = GCNT(e, x);
            k++;
        }
    }
    g->off[nord] = k;
    free(map);
    free(order);
    if (traza_grammar_finish(g, err) < 0) {
        traza_grammar_free(g);
        return NULL;
    }
    return g;
oom:
    free(map);
    free(order);
    traza_grammar_free(g);
    traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    return NULL;
}
