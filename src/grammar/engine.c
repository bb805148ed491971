/* Online Sequitur / ReSequitur engine. See engine.h. */
#include "grammar/engine.h"

#include <stdlib.h>
#include <string.h>
#include "util/util.h"

#define N(i) (e->nodes[(i)])

static int check(gengine *e, uint32_t s);

/* ---- allocation -------------------------------------------------------------- */

#define KIND(i) (N(i).s & 3u)
#define ID(i) (N(i).s >> 2)
#define CODE(id, k) ((uint32_t)(id) << 2 | (k))

static uint32_t node_new(gengine *e, uint32_t code, uint64_t c)
{
    uint32_t i;
    if (e->freenode != GNIL) {
        i = e->freenode;
        e->freenode = N(i).n;
    } else {
        if (e->nnodes >= GNIL - 1 || TZ_GROW(e->nodes, e->capnodes, e->nnodes + 1) < 0) {
            e->oom = 1;
            return GNIL;
        }
        i = (uint32_t)e->nnodes++;
    }
    N(i).s = code;
    N(i).c = c;
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
    memset(&e->rules[r], 0, sizeof e->rules[r]);
    uint32_t g = node_new(e, CODE(r, GK_GUARD), 1);
    if (g == GNIL)
        return GNIL;
    N(g).p = N(g).n = g;
    e->rules[r].guard = g;
    e->rules[r].live = 1;
    return r;
}

static void rule_release(gengine *e, uint32_t r)
{
    e->rules[r].live = 0;
    if (TZ_GROW(e->freerules, e->capfreerules, e->nfreerules + 1) < 0) {
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
static uint32_t intern(gengine *e, uint64_t v)
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

/* Same symbol and count (a digram component). Guards and dead nodes equal nothing. */
static inline int same(gengine *e, uint32_t a, uint32_t b)
{
    return KIND(a) < GK_GUARD && N(a).s == N(b).s && N(a).c == N(b).c;
}

static inline int symeq(gengine *e, uint32_t a, uint32_t b)
{
    return KIND(a) < GK_GUARD && N(a).s == N(b).s;
}

static inline uint64_t dkey(gengine *e, uint32_t x)
{
    return (uint64_t)N(x).s << 32 | N(N(x).n).s;
}

static inline uint32_t dhash(gengine *e, uint32_t x, uint64_t key)
{
    uint64_t h = key;
    if (e->rle)
        h += N(x).c * 0x165667B19E3779F9ULL + N(N(x).n).c * 0x27D4EB2F165667C5ULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    return (uint32_t)(h >> 32);
}

/* Slot of the entry for x's digram (*found = 1), or the empty slot where it would go. */
static inline size_t tprobe(gengine *e, uint32_t x, uint64_t key, uint32_t h, int *found)
{
    size_t mask = e->tabcap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const gslot *t = &e->tab[i];
        if (t->node == GNIL) {
            *found = 0;
            return i;
        }
        if (t->key == key &&
            (!e->rle || (N(t->node).c == N(x).c && N(N(t->node).n).c == N(N(x).n).c))) {
            *found = 1;
            return i;
        }
    }
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

/* *find_digram(x) = x */
static void tset(gengine *e, uint32_t x)
{
    if (is_guard(e, x) || is_guard(e, N(x).n))
        return;
    if ((e->tabcount + 1) * 2 > e->tabcap && tgrow(e) < 0)
        return;
    uint64_t key = dkey(e, x);
    uint32_t h = dhash(e, x, key);
    int found;
    size_t i = tprobe(e, x, key, h, &found);
    if (!found)
        e->tabcount++;
    else if (e->tab[i].node != x)
        N(e->tab[i].node).slot = GNIL;
    e->tab[i].key = key;
    e->tab[i].h = h;
    e->tab[i].node = x;
    N(x).slot = (uint32_t)i;
}

static void tremove_slot(gengine *e, size_t i)
{
    size_t mask = e->tabcap - 1, j = i;
    N(e->tab[i].node).slot = GNIL;
    e->tab[i].node = GNIL;
    e->tabcount--;
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

/* delete_digram: removes x's digram if the table entry is x. */
static inline void delete_digram(gengine *e, uint32_t x)
{
    if (N(x).slot != GNIL)
        tremove_slot(e, N(x).slot);
}

/* ---- linking ------------------------------------------------------------------- */

static void join(gengine *e, uint32_t left, uint32_t right)
{
    if (N(left).n != GNIL) {
        delete_digram(e, left);
        if (!e->rle) {
            /* triples (aaa): the reference keeps the first pair in the table */
            uint32_t rp = N(right).p, rn = N(right).n;
            if (rp != GNIL && rn != GNIL && same(e, right, rp) && same(e, right, rn))
                tset(e, right);
            uint32_t lp = N(left).p, ln = N(left).n;
            if (lp != GNIL && ln != GNIL && same(e, left, ln) && same(e, left, lp))
                tset(e, lp);
        }
    }
    N(left).n = right;
    N(right).p = left;
}

static void insert_after(gengine *e, uint32_t q, uint32_t y)
{
    join(e, y, N(q).n);
    join(e, q, y);
}

static void del_node(gengine *e, uint32_t x)
{
    join(e, N(x).p, N(x).n);
    if (!is_guard(e, x)) {
        delete_digram(e, x);
        if (KIND(x) == GK_RULE)
            e->rules[ID(x)].uses -= N(x).c;
    }
    node_release(e, x);
}

/* ---- ReSequitur: merging a^n a^m ------------------------------------------------ */

/* Merges x with equal neighbours; returns the surviving node. Digram entries of the
 * nodes whose counts change are removed first. */
static uint32_t merge_around(gengine *e, uint32_t x)
{
    uint32_t a = N(x).p;
    if (!is_guard(e, a) && symeq(e, a, x)) {
        uint64_t c = N(x).c;
        delete_digram(e, N(a).p);
        del_node(e, x);
        N(a).c += c;
        if (KIND(a) == GK_RULE)
            e->rules[ID(a)].uses += c;
        x = a;
    }
    uint32_t b = N(x).n;
    if (!is_guard(e, b) && symeq(e, x, b)) {
        uint64_t c = N(b).c;
        delete_digram(e, N(x).p);
        delete_digram(e, x);
        del_node(e, b);
        N(x).c += c;
        if (KIND(x) == GK_RULE)
            e->rules[ID(x)].uses += c;
    }
    return x;
}

static void settle(gengine *e, uint32_t x)
{
    x = merge_around(e, x);
    if (!check(e, N(x).p))
        check(e, x);
}

/* ---- the Sequitur operations ---------------------------------------------------- */

static void expand(gengine *e, uint32_t s);

static void substitute(gengine *e, uint32_t s, uint32_t r)
{
    uint32_t q = N(s).p;
    del_node(e, N(q).n);
    del_node(e, N(q).n);
    uint32_t y = node_new(e, CODE(r, GK_RULE), 1);
    if (y == GNIL)
        return;
    insert_after(e, q, y);
    if (e->rle) {
        settle(e, y);
        return;
    }
    if (!check(e, q))
        check(e, N(q).n);
}

static void utility(gengine *e, uint32_t r, int last)
{
    if (!e->rules[r].live)
        return;
    uint32_t f = last ? GLAST(e, r) : GFIRST(e, r);
    if (KIND(f) == GK_RULE && !e->rules[ID(f)].pinned && e->rules[ID(f)].uses == 1)
        expand(e, f);
}

/* Deals with a repeated digram: ss (just formed) equals m (from the table).
 * Reuses m's rule when m is a whole rule body, else makes a new rule: the older
 * occurrence is replaced first, then the rule's digram is recorded, then ss. */
static void match(gengine *e, uint32_t ss, uint32_t m)
{
    uint32_t r;
    if (is_guard(e, N(m).p) && is_guard(e, N(N(m).n).n) && e->rules[ID(N(m).p)].pinned != 2) {
        r = ID(N(m).p);
        substitute(e, ss, r);
    } else {
        r = rule_new(e);
        if (r == GNIL)
            return;
        uint32_t a = node_new(e, N(ss).s, N(ss).c);
        if (a == GNIL)
            return;
        insert_after(e, GLAST(e, r), a);
        uint32_t s2 = N(ss).n;
        uint32_t b = node_new(e, N(s2).s, N(s2).c);
        if (b == GNIL)
            return;
        insert_after(e, GLAST(e, r), b);
        substitute(e, m, r);
        tset(e, GFIRST(e, r));
        substitute(e, ss, r);
    }
    utility(e, r, 0);
    if (e->rle)
        utility(e, r, 1);
}

static void expand(gengine *e, uint32_t s)
{
    uint32_t left = N(s).p, right = N(s).n;
    uint32_t r = ID(s);
    uint32_t g = e->rules[r].guard;
    uint32_t f = N(g).n, l = N(g).p;
    join(e, l, f); /* the guard goes away */
    node_release(e, g);
    rule_release(e, r);
    delete_digram(e, s);
    if (e->rle)
        delete_digram(e, left);
    N(s).s = GK_DEAD;
    join(e, left, right);
    node_release(e, s);
    join(e, left, f);
    join(e, l, right);
    if (!e->rle) {
        tset(e, l);
        return;
    }
    settle(e, f);
    if (KIND(right) < GK_GUARD)
        settle(e, right);
}

static int check(gengine *e, uint32_t s)
{
    if (KIND(s) >= GK_GUARD || is_guard(e, N(s).n))
        return 0;
    if ((e->tabcount + 1) * 2 > e->tabcap && tgrow(e) < 0)
        return 0;
    uint64_t key = dkey(e, s);
    uint32_t h = dhash(e, s, key);
    int found;
    size_t i = tprobe(e, s, key, h, &found);
    if (!found) {
        e->tab[i].key = key;
        e->tab[i].h = h;
        e->tab[i].node = s;
        N(s).slot = (uint32_t)i;
        e->tabcount++;
        return 0;
    }
    uint32_t x = e->tab[i].node;
    if (x == s || N(x).n == s || N(s).n == x)
        return 0; /* the same or overlapping occurrences */
    match(e, s, x);
    return 1;
}

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
    uint32_t last = GLAST(e, root);
    uint32_t code;
    if (kind == GK_TERM) {
        uint32_t id = intern(e, v);
        if (id == GNIL)
            return -1;
        code = CODE(id, GK_TERM);
    } else {
        code = CODE(v, GK_RULE);
    }
    if (e->rle && N(last).s == code) { /* a guard's code never equals a symbol's */
        delete_digram(e, N(last).p);
        N(last).c += cnt;
        if (kind == GK_RULE)
            e->rules[v].uses += cnt;
        check(e, N(last).p);
        return e->oom ? -1 : 0;
    }
    uint32_t x = node_new(e, code, cnt);
    if (x == GNIL)
        return -1;
    insert_after(e, last, x);
    check(e, N(x).p);
    return e->oom ? -1 : 0;
}

void ge_drop_root(gengine *e, uint32_t root)
{
    uint32_t g = e->rules[root].guard;
    uint32_t x = N(g).n;
    if (KIND(x) == GK_RULE)
        e->rules[ID(x)].uses -= N(x).c;
    delete_digram(e, N(x).p);
    delete_digram(e, x);
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
            g->syms[k].rep = N(x).c;
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
