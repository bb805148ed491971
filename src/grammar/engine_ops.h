/* The engine's hot operations, compiled twice by engine.c: once for Sequitur
 * (RLE = 0: every count is 1, the digram key alone identifies a digram) and once for
 * ReSequitur (RLE = 1), so neither pays for the other's tests. Every name is
 * suffixed through OP(); the order of operations is the same in both copies. */
#ifndef RLE
#error "engine_ops.h is included by engine.c only"
#endif

#define OP__(a, b) a##b
#define OP_(a, b) OP__(a, b)
#define OP(n) OP_(n, OPSFX)
#define C(i) (e->cnt[(i)])

static int OP(check)(gengine *e, uint32_t s);
static void OP(expand)(gengine *e, uint32_t s);

static inline TZ_AINLINE uint32_t OP(node_new)(gengine *e, uint32_t code, uint64_t c)
{
    uint32_t i;
    if (TZ_LIKELY(e->freenode != GNIL)) {
        i = e->freenode;
        e->freenode = N(i).n;
    } else if ((i = node_grow(e)) == GNIL) {
        return GNIL;
    }
    gnode *x = &N(i);
    x->s = code;
    if (RLE)
        e->cnt[i] = c;
    x->p = x->n = GNIL;
    x->slot = GNIL;
    if ((code & 3u) == GK_RULE)
        e->rules[code >> 2].uses += RLE ? c : 1;
    return i;
}

/* Same symbol and count (a digram component). Guards and dead nodes equal nothing. */
static inline TZ_AINLINE int OP(same)(gengine *e, uint32_t a, uint32_t b)
{
    return KIND(a) < GK_GUARD && N(a).s == N(b).s && (!RLE || C(a) == C(b));
}

static inline TZ_AINLINE uint32_t OP(dhash)(gengine *e, uint32_t x, uint64_t key)
{
    uint64_t h = key;
    if (RLE)
        h += C(x) * 0x165667B19E3779F9ULL + C(N(x).n) * 0x27D4EB2F165667C5ULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    return (uint32_t)(h >> 32);
}

/* Slot of the entry for x's digram (*found = 1), or the empty slot where it would go. */
static inline TZ_AINLINE size_t OP(tprobe)(gengine *e, uint32_t x, uint64_t key, uint32_t h, int *found)
{
    size_t mask = e->tabcap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const gslot *t = &e->tab[i];
        if (t->node == GNIL) {
            *found = 0;
            return i;
        }
        if (t->key == key &&
            (!RLE || (C(t->node) == C(x) && C(N(t->node).n) == C(N(x).n)))) {
            *found = 1;
            return i;
        }
    }
}

/* *find_digram(x) = x */
static inline TZ_AINLINE void OP(tset_in)(gengine *e, uint32_t x)
{
    uint32_t xn = N(x).n;
    if (is_guard(e, x) || is_guard(e, xn))
        return;
    if (TZ_UNLIKELY((e->tabcount + 1) * 4 > e->tabcap) && tgrow(e) < 0)
        return;
    uint64_t key = (uint64_t)N(x).s << 32 | N(xn).s;
    uint32_t h = OP(dhash)(e, x, key);
    int found;
    size_t i = OP(tprobe)(e, x, key, h, &found);
    gslot *t = &e->tab[i];
    if (!found) {
        e->tabcount++;
        t->key = key;
        t->h = h;
    } else if (t->node != x) {
        N(t->node).slot = GNIL;
    }
    t->node = x;
    N(x).slot = (uint32_t)i;
}

static void OP(tset)(gengine *e, uint32_t x)
{
    OP(tset_in)(e, x);
}

/* delete_digram: removes x's digram if the table entry is x. */
static inline TZ_AINLINE void OP(delete_digram)(gengine *e, uint32_t x)
{
    if (N(x).slot != GNIL)
        tremove_slot(e, x, N(x).slot);
}

/* ---- linking ------------------------------------------------------------------- */

static inline TZ_AINLINE void OP(join)(gengine *e, uint32_t left, uint32_t right)
{
    gnode *L = &N(left), *R = &N(right);
    if (L->n != GNIL) {
        if (L->slot != GNIL)
            tremove_slot(e, left, L->slot);
        if (!RLE) {
            /* triples (aaa): the reference keeps the first pair in the table */
            uint32_t rs = R->s;
            if ((rs & 3u) < GK_GUARD) {
                uint32_t rp = R->p, rn = R->n;
                if (rp != GNIL && rn != GNIL && N(rp).s == rs && N(rn).s == rs)
                    OP(tset)(e, right);
            }
            uint32_t ls = L->s;
            if ((ls & 3u) < GK_GUARD) {
                uint32_t lp = L->p, ln = L->n;
                if (lp != GNIL && N(ln).s == ls && N(lp).s == ls)
                    OP(tset)(e, lp);
            }
        }
    }
    L->n = right;
    R->p = left;
}

/* insert_after(q, y) for a fresh node y (p = n = slot = GNIL, as node_new leaves
 * it): join(y, q.n) only links (y has no successor yet), and join(q, y) skips the
 * triple check on y's side (y has no predecessor yet). */
static inline TZ_AINLINE void OP(insert_after)(gengine *e, uint32_t q, uint32_t y)
{
    gnode *Q = &N(q);
    uint32_t qn = Q->n;
    N(y).n = qn;
    N(qn).p = y;
    if (Q->slot != GNIL)
        tremove_slot(e, q, Q->slot);
    if (!RLE) {
        uint32_t qs = Q->s;
        if ((qs & 3u) < GK_GUARD) {
            uint32_t qp = Q->p;
            if (qp != GNIL && N(qn).s == qs && N(qp).s == qs)
                OP(tset)(e, qp);
        }
    }
    Q->n = y;
    N(y).p = q;
}

static inline TZ_AINLINE void OP(del_node)(gengine *e, uint32_t x)
{
    OP(join)(e, N(x).p, N(x).n);
    if (!is_guard(e, x)) {
        OP(delete_digram)(e, x);
        if (KIND(x) == GK_RULE)
            e->rules[ID(x)].uses -= RLE ? C(x) : 1;
    }
    node_release(e, x);
}

/* ---- ReSequitur: merging a^n a^m ------------------------------------------------ */

/* Merges x with equal neighbours; returns the surviving node. Digram entries of the
 * nodes whose counts change are removed first. */
static uint32_t OP(merge_around)(gengine *e, uint32_t x)
{
    uint32_t a = N(x).p;
    if (!is_guard(e, a) && symeq(e, a, x)) {
        uint64_t c = C(x);
        OP(delete_digram)(e, N(a).p);
        OP(del_node)(e, x);
        C(a) += c;
        if (KIND(a) == GK_RULE)
            e->rules[ID(a)].uses += c;
        x = a;
    }
    uint32_t b = N(x).n;
    if (!is_guard(e, b) && symeq(e, x, b)) {
        uint64_t c = C(b);
        OP(delete_digram)(e, N(x).p);
        OP(delete_digram)(e, x);
        OP(del_node)(e, b);
        C(x) += c;
        if (KIND(x) == GK_RULE)
            e->rules[ID(x)].uses += c;
    }
    return x;
}

static void OP(settle)(gengine *e, uint32_t x)
{
    x = OP(merge_around)(e, x);
    if (!OP(check)(e, N(x).p))
        OP(check)(e, x);
}

/* ---- the Sequitur operations ---------------------------------------------------- */

static void OP(substitute)(gengine *e, uint32_t s, uint32_t r)
{
    uint32_t q = N(s).p;
    OP(del_node)(e, N(q).n);
    OP(del_node)(e, N(q).n);
    uint32_t y = OP(node_new)(e, CODE(r, GK_RULE), 1);
    if (y == GNIL)
        return;
    OP(insert_after)(e, q, y);
    if (RLE) {
        OP(settle)(e, y);
        return;
    }
    if (!OP(check)(e, q))
        OP(check)(e, N(q).n);
}

static inline TZ_AINLINE void OP(utility)(gengine *e, uint32_t r, int last)
{
    if (!e->rules[r].live)
        return;
    uint32_t f = last ? GLAST(e, r) : GFIRST(e, r);
    if (KIND(f) == GK_RULE && !e->rules[ID(f)].pinned && e->rules[ID(f)].uses == 1)
        OP(expand)(e, f);
}

/* Deals with a repeated digram: ss (just formed) equals m (from the table).
 * Reuses m's rule when m is a whole rule body, else makes a new rule: the older
 * occurrence is replaced first, then the rule's digram is recorded, then ss. */
static TZ_NOINLINE void OP(match)(gengine *e, uint32_t ss, uint32_t m)
{
    uint32_t r;
    uint32_t mp = N(m).p;
    if (is_guard(e, mp) && is_guard(e, N(N(m).n).n) && e->rules[ID(mp)].pinned != 2) {
        r = ID(mp);
        OP(substitute)(e, ss, r);
    } else {
        r = rule_new(e);
        if (r == GNIL)
            return;
        uint32_t a = OP(node_new)(e, N(ss).s, RLE ? C(ss) : 1);
        if (a == GNIL)
            return;
        uint32_t s2 = N(ss).n;
        uint32_t b = OP(node_new)(e, N(s2).s, RLE ? C(s2) : 1);
        if (b == GNIL)
            return;
        /* the body a b behind the new guard: appending a fresh node after the
         * guard or after a fresh node touches no digram, so this only links */
        uint32_t g = e->rules[r].guard;
        N(g).n = a;
        N(a).p = g;
        N(a).n = b;
        N(b).p = a;
        N(b).n = g;
        N(g).p = b;
        OP(substitute)(e, m, r);
        OP(tset_in)(e, GFIRST(e, r));
        OP(substitute)(e, ss, r);
    }
    OP(utility)(e, r, 0);
    if (RLE)
        OP(utility)(e, r, 1);
}

static void OP(expand)(gengine *e, uint32_t s)
{
    uint32_t left = N(s).p, right = N(s).n;
    uint32_t r = ID(s);
    uint32_t g = e->rules[r].guard;
    uint32_t f = N(g).n, l = N(g).p;
    OP(join)(e, l, f); /* the guard goes away */
    node_release(e, g);
    rule_release(e, r);
    OP(delete_digram)(e, s);
    if (RLE)
        OP(delete_digram)(e, left);
    N(s).s = GK_DEAD;
    OP(join)(e, left, right);
    node_release(e, s);
    OP(join)(e, left, f);
    OP(join)(e, l, right);
    if (!RLE) {
        OP(tset_in)(e, l);
        return;
    }
    OP(settle)(e, f);
    if (KIND(right) < GK_GUARD)
        OP(settle)(e, right);
}

static int OP(check)(gengine *e, uint32_t s)
{
    uint32_t sn = N(s).n;
    if (KIND(s) >= GK_GUARD || is_guard(e, sn))
        return 0;
    if (TZ_UNLIKELY((e->tabcount + 1) * 4 > e->tabcap) && tgrow(e) < 0)
        return 0;
    uint64_t key = (uint64_t)N(s).s << 32 | N(sn).s;
    uint32_t h = OP(dhash)(e, s, key);
    int found;
    size_t i = OP(tprobe)(e, s, key, h, &found);
    gslot *t = &e->tab[i];
    if (!found) {
        t->key = key;
        t->h = h;
        t->node = s;
        N(s).slot = (uint32_t)i;
        e->tabcount++;
        return 0;
    }
    uint32_t x = t->node;
    if (x == s || N(x).n == s || sn == x)
        return 0; /* the same or overlapping occurrences */
    OP(match)(e, s, x);
    return 1;
}

static int OP(push)(gengine *e, uint32_t root, uint64_t v, uint32_t kind, uint64_t cnt)
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
    if (RLE && N(last).s == code) { /* a guard's code never equals a symbol's */
        OP(delete_digram)(e, N(last).p);
        C(last) += cnt;
        if (kind == GK_RULE)
            e->rules[v].uses += cnt;
        OP(check)(e, N(last).p);
        return e->oom ? -1 : 0;
    }
    uint32_t x = OP(node_new)(e, code, cnt);
    if (x == GNIL)
        return -1;
    OP(insert_after)(e, last, x);
    OP(check)(e, N(x).p);
    return e->oom ? -1 : 0;
}

#undef OP
#undef C
#undef OP_
#undef OP__
