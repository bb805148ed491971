/* Choosing a loop header: candidates ranked over the whole expansion of a grammar.
 *
 * A loop header runs once per iteration of its loop, and in a PC trace every
 * iteration but the first enters it by the loop's backward jump. The candidates are
 * the symbols most often entered from a greater-or-equal symbol (addresses: half of
 * them) and the most frequent symbols; both counts come from the grammar in O(|G|):
 * each rule's first and last terminal and its number of occurrences give every pair
 * of consecutive symbols of w with its multiplicity. Each candidate cuts w into cycles
 * (traza_grammar_cycles, O(|G|)); the best is the one whose cycles are most regular:
 * the largest share of w in cycles that occur at least twice. A start-up loop fails
 * that test (what follows it is one cycle that never repeats), the main loop passes.
 * Its rotations pass it as well (any address run once per iteration gives the same
 * cycles shifted), and so may loops in the functions it calls: among the candidates
 * within one point of the best, on addresses a candidate inside a call ranks last
 * (most of its repeating cycles return to just after a call site they reach only
 * later: the call was made before the cycle began), then one where a call returns
 * (its cycles end by landing just after their own call site), then one mostly
 * entered by a backward jump comes first (the target of the loop's jump, not an
 * address after it); then, on any symbols, fewer distinct cycles, then the one
 * entered first (an outer loop before the loops it runs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "grammar/gram_internal.h"
#include "util/util.h"

/* Largest distance between an instruction and the next one in sequence (bytes; a
 * call instruction is at most this long), for the call test on addresses. */
#define SEQ_GAP 8
/* Candidates whose shares of w in repeating cycles differ by less are equally regular. */
#define REGULAR_TIE 0.01
/* The call test expands repeating cycles up to this length, and up to this many
 * symbols in all, per candidate. */
#define IN_CALL_MAX_LEN (1u << 16)
#define IN_CALL_BUDGET (1u << 18)

typedef struct symstat {
    uint64_t sym, occ, back;
} symstat;

typedef struct tally {
    tz_imap idx; /* symbol -> index into st */
    symstat *st;
    size_t n, cap;
    int oom;
} tally;

static symstat *stat_of(tally *t, uint64_t v)
{
    int64_t i;
    if (tz_imap_get(&t->idx, (int64_t)v, &i))
        return &t->st[i];
    if (TZ_GROW(t->st, t->cap, t->n + 1) < 0 || tz_imap_put(&t->idx, (int64_t)v, (int64_t)t->n) < 0) {
        t->oom = 1;
        return NULL;
    }
    t->st[t->n] = (symstat){v, 0, 0};
    return &t->st[t->n++];
}

/* mult transitions p -> q */
static void transition(tally *t, uint64_t p, uint64_t q, uint64_t mult)
{
    if (p < q || !mult)
        return;
    symstat *s = stat_of(t, q);
    if (s)
        s->back += mult;
}

/* Occurrences and backward entries of every terminal of g. */
static int tally_grammar(const traza_grammar *g, tally *t, traza_err *err)
{
    uint32_t *order = NULL;
    if (tzg_topo(g, &order, err) < 0)
        return -1;
    uint32_t n = g->nrules;
    uint64_t *first = malloc(n * sizeof *first), *last = malloc(n * sizeof *last);
    uint64_t *mult = calloc(n, sizeof *mult);
    if (!first || !last || !mult) {
        free(order), free(first), free(last), free(mult);
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    }
    for (uint32_t i = 0; i < n; i++) { /* children first */
        uint32_t r = order[i];
        if (g->off[r] == g->off[r + 1]) {
            first[r] = last[r] = 0;
            continue;
        }
        const traza_gsym *a = &g->syms[g->off[r]], *z = &g->syms[g->off[r + 1] - 1];
        first[r] = a->is_rule ? first[a->value] : a->value;
        last[r] = z->is_rule ? last[z->value] : z->value;
    }
    mult[0] = 1;
    for (uint32_t i = n; i-- > 0;) { /* parents first */
        uint32_t r = order[i];
        uint64_t m = mult[r];
        if (!m)
            continue;
        int have_prev = 0;
        uint64_t prev = 0;
        for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
            const traza_gsym *s = &g->syms[k];
            uint64_t f = s->is_rule ? first[s->value] : s->value, l = s->is_rule ? last[s->value] : s->value;
            if (s->is_rule && g->len[s->value] == 0)
                continue;
            if (s->is_rule) {
                mult[s->value] += m * s->rep;
            } else {
                symstat *st = stat_of(t, s->value);
                if (st)
                    st->occ += m * s->rep;
            }
            if (have_prev)
                transition(t, prev, f, m);
            transition(t, l, f, m * (s->rep - 1));
            prev = l;
            have_prev = 1;
        }
    }
    free(order), free(first), free(last), free(mult);
    return t->oom ? traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory") : 0;
}

static int cmp_back(const void *u, const void *v)
{
    const symstat *x = u, *y = v;
    if (x->back != y->back)
        return x->back > y->back ? -1 : 1;
    if (x->occ != y->occ)
        return x->occ > y->occ ? -1 : 1;
    return (x->sym > y->sym) - (x->sym < y->sym);
}

static int cmp_occ(const void *u, const void *v)
{
    const symstat *x = u, *y = v;
    if (x->occ != y->occ)
        return x->occ > y->occ ? -1 : 1;
    return (x->sym > y->sym) - (x->sym < y->sym);
}

static int cmp_share(const void *u, const void *v)
{
    const traza_gcycle *x = u, *y = v;
    double sx = (double)x->count * (double)x->length, sy = (double)y->count * (double)y->length;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

static int sequential(uint64_t a, uint64_t b)
{
    return b > a && b - a <= SEQ_GAP;
}

/* Whether some key of m lies in (v, v + SEQ_GAP]; *pos receives its value (the
 * smallest one when several do). */
static int near_after(const tz_imap *m, uint64_t v, int64_t *pos)
{
    int found = 0;
    for (uint64_t d = 1; d <= SEQ_GAP && v <= UINT64_MAX - d; d++) {
        int64_t p;
        if (tz_imap_get(m, (int64_t)(v + d), &p) && (!found || p < *pos)) {
            *pos = p;
            found = 1;
        }
    }
    return found;
}

/* How the cycle c[0..n) (followed by h) relates to calls. A jump from s is a call when
 * the cycle lands, out of sequence, at most SEQ_GAP bytes after s (the return); a jump
 * out of sequence from x that is no call lands at b as a return when b is at most
 * SEQ_GAP bytes after a jump. *unmatched: a return to just after a jump the cycle
 * makes only later (the call was made before the cycle began); *returns_to_h: its jump
 * to h is such a return, to just after one of its own jumps (h is where a call
 * returns). */
static int call_shape(const uint64_t *c, size_t n, uint64_t h, int *unmatched, int *returns_to_h, traza_err *err)
{
    tz_imap jump, land; /* jump source -> its first position; landing -> 1 */
    tz_imap_init(&jump);
    tz_imap_init(&land);
    *unmatched = *returns_to_h = 0;
    if (tz_imap_reserve(&jump, n) < 0 || tz_imap_reserve(&land, n) < 0) {
        tz_imap_free(&jump);
        tz_imap_free(&land);
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t next = i + 1 < n ? c[i + 1] : h;
        int64_t p;
        if (sequential(c[i], next))
            continue;
        if (!tz_imap_get(&jump, (int64_t)c[i], &p))
            tz_imap_put(&jump, (int64_t)c[i], (int64_t)i);
        tz_imap_put(&land, (int64_t)next, 1);
    }
    for (size_t i = 1; i <= n; i++) {
        uint64_t b = i < n ? c[i] : h;
        int64_t p;
        if (sequential(c[i - 1], b) || near_after(&land, c[i - 1], &p))
            continue; /* in sequence, or a call */
        if (b > SEQ_GAP ? near_after(&jump, b - SEQ_GAP - 1, &p) : 0) {
            int before = 0;
            for (uint64_t d = 1; d <= SEQ_GAP; d++) /* a jump just before b, made before i */
                before |= tz_imap_get(&jump, (int64_t)(b - d), &p) && (size_t)p < i;
            *unmatched |= !before;
            if (i == n)
                *returns_to_h = before;
        }
    }
    tz_imap_free(&jump);
    tz_imap_free(&land);
    return 0;
}

/* Whether h runs inside a function its loop calls (in_call), or is where a call of its
 * loop returns (return_point): most of the share of w its repeating cycles hold (the
 * cycles looked at: up to IN_CALL_BUDGET symbols, the largest shares first) is in
 * cycles of that shape (call_shape). */
static int call_tests(const traza_grammar *g, uint64_t h, traza_gcycle *tab, size_t n, traza_gheader *out,
                      traza_err *err)
{
    traza_gcycle *by = malloc((n ? n : 1) * sizeof *by);
    if (!by)
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (tab[i].count >= 2 && tab[i].length <= IN_CALL_MAX_LEN)
            by[m++] = tab[i];
    qsort(by, m, sizeof *by, cmp_share);
    double w = (double)g->len[0], in_call = 0, ret = 0;
    uint64_t spent = 0;
    int rc = 0;
    for (size_t i = 0; i < m && spent + by[i].length <= IN_CALL_BUDGET; i++) {
        spent += by[i].length;
        uint64_t *c = NULL;
        int un = 0, rh = 0;
        rc = tzg_expand(g, by[i].first, by[i].length, &c, err);
        if (rc == 0)
            rc = call_shape(c, (size_t)by[i].length, h, &un, &rh, err);
        free(c);
        if (rc < 0)
            break;
        double share = (double)by[i].count * (double)by[i].length / w;
        in_call += un ? share : 0;
        ret += rh ? share : 0;
    }
    free(by);
    out->in_call = in_call > out->regular / 2;
    out->return_point = ret > out->regular / 2;
    return rc;
}

static int score(const traza_grammar *g, int addresses, const symstat *s, traza_gheader *h, traza_err *err)
{
    traza_gcycle *tab;
    size_t n;
    if (traza_grammar_cycles(g, s->sym, &tab, &n, err) < 0)
        return -1;
    memset(h, 0, sizeof *h);
    h->symbol = s->sym;
    h->occurrences = s->occ;
    h->back_entries = s->back;
    h->distinct_cycles = n;
    double w = g->len[0] ? (double)g->len[0] : 1, rep = 0, largest = 0;
    for (size_t i = 0; i < n; i++) {
        h->cycles += tab[i].count;
        if (tab[i].count >= 2)
            rep += (double)tab[i].count * (double)tab[i].length;
        if ((double)tab[i].length > largest)
            largest = (double)tab[i].length;
        if (tab[i].first == 0)
            h->first = tab[i].length; /* the cycle before the first h, or from the h at 0 */
    }
    uint64_t w0;
    if (traza_grammar_at(g, 0, &w0, err) < 0) {
        free(tab);
        return -1;
    }
    if (w0 == s->sym)
        h->first = 0;
    h->regular = rep / w;
    h->largest = largest / w;
    int rc = 0;
    if (addresses)
        rc = call_tests(g, s->sym, tab, n, h, err);
    free(tab);
    return rc;
}

static int cmp_regular(const void *u, const void *v)
{
    const traza_gheader *x = u, *y = v;
    if (x->regular != y->regular)
        return x->regular > y->regular ? -1 : 1;
    return (x->symbol > y->symbol) - (x->symbol < y->symbol);
}

/* Among the most regular: fewer distinct cycles, the loop entered first (an outer
 * loop before the loops it runs), the smaller symbol. */
static int cmp_tie(const void *u, const void *v)
{
    const traza_gheader *x = u, *y = v;
    if (x->distinct_cycles != y->distinct_cycles)
        return x->distinct_cycles < y->distinct_cycles ? -1 : 1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return (x->symbol > y->symbol) - (x->symbol < y->symbol);
}

/* Addresses, before that: not inside a call, not where a call returns, entered by a
 * backward jump more often than not (the loop's own jump). */
static int cmp_tie_addresses(const void *u, const void *v)
{
    const traza_gheader *x = u, *y = v;
    if (x->in_call != y->in_call)
        return x->in_call - y->in_call;
    if (x->return_point != y->return_point)
        return x->return_point - y->return_point;
    int bx = x->back_entries > x->occurrences / 2, by = y->back_entries > y->occurrences / 2;
    if (bx != by)
        return by - bx;
    return cmp_tie(u, v);
}

int traza_grammar_rank_loop_headers(const traza_grammar *g, int addresses, size_t max, traza_gheader **out, size_t *nout,
                                    traza_err *err)
{
    *out = NULL;
    *nout = 0;
    if (!g->nrules || g->len[0] == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "loop header: the sequence is empty");
    tally t;
    memset(&t, 0, sizeof t);
    tz_imap_init(&t.idx);
    int rc = tally_grammar(g, &t, err);
    tz_imap_free(&t.idx);
    if (rc < 0) {
        free(t.st);
        return -1;
    }
    size_t nc = 0;
    if (addresses && t.n) { /* half of them by backward entries */
        qsort(t.st, t.n, sizeof *t.st, cmp_back);
        while (nc < t.n && nc < (max + 1) / 2 && t.st[nc].back > 0)
            nc++;
    }
    if (t.n > nc) /* the others by occurrences */
        qsort(t.st + nc, t.n - nc, sizeof *t.st, cmp_occ);
    while (nc < t.n && nc < max && t.st[nc].occ > 1)
        nc++;
    if (nc == 0) {
        free(t.st);
        return traza_err_set(err, TRAZA_E_USAGE, "loop header: no symbol occurs twice: the sequence has no loop");
    }
    traza_gheader *h = calloc(nc, sizeof *h);
    if (!h) {
        free(t.st);
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    }
    for (size_t i = 0; i < nc; i++)
        if (score(g, addresses, &t.st[i], &h[i], err) < 0) {
            free(t.st);
            free(h);
            return -1;
        }
    free(t.st);
    qsort(h, nc, sizeof *h, cmp_regular);
    size_t near = 1; /* within REGULAR_TIE of the best: equally regular (rotations, nested loops) */
    while (near < nc && h[near].regular >= h[0].regular - REGULAR_TIE)
        near++;
    qsort(h, near, sizeof *h, addresses ? cmp_tie_addresses : cmp_tie);
    *out = h;
    *nout = nc;
    return 0;
}

int traza_grammar_pick_loop_header(const uint64_t *seq, size_t n, size_t sample, uint64_t *loop_header, char *why,
                                   size_t whysize, traza_err *err)
{
    if (n == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "loop header: the sequence is empty");
    if (sample == 0 || sample > n)
        sample = n;
    traza_grammar *g = traza_grammar_build(seq, sample, TRAZA_G_SEQUITUR, NULL, err);
    if (!g)
        return -1;
    traza_gheader *h;
    size_t nh;
    int rc = traza_grammar_rank_loop_headers(g, 1, TRAZA_GHEADER_CANDIDATES, &h, &nh, err);
    traza_grammar_free(g);
    if (rc < 0)
        return -1;
    *loop_header = h[0].symbol;
    if (why && whysize) {
        tz_buf b;
        tz_buf_init(&b);
        tz_buf_printf(&b, "%zu candidates over %zu symbols, the most regular first:", nh, sample);
        for (size_t i = 0; i < nh && i < 5; i++)
            tz_buf_printf(&b, " 0x%llx (%llu cycles, %llu distinct, %.1f%% in repeating cycles%s);",
                          (unsigned long long)h[i].symbol, (unsigned long long)h[i].cycles,
                          (unsigned long long)h[i].distinct_cycles, 100 * h[i].regular,
                          h[i].in_call ? ", inside a call" : "");
        snprintf(why, whysize, "%s", b.oom || !b.s ? "" : b.s);
        tz_buf_free(&b);
    }
    free(h);
    return 0;
}
