/* Builders: Sequitur and ReSequitur on one sequence, Cyclitur over cycles. */
#include <stdlib.h>
#include <string.h>
#include "grammar/engine.h"
#include "grammar/gram_internal.h"
#include "util/util.h"

typedef struct crun {
    uint64_t v;
    uint32_t kind;
    uint64_t rep;
} crun;

struct traza_gbuilder {
    traza_galgo algo;
    gengine e;
    uint32_t root;
    int has_loop_header;
    uint64_t loop_header;
    int open;       /* Cyclitur: a cycle is open in `root` */
    uint32_t seq;   /* Cyclitur: the root receiving the cycles' start symbols, online */
    crun pend;      /* Cyclitur: the last run of start symbols, not yet pushed */
};

traza_gbuilder *traza_gbuilder_new(traza_galgo algo, const uint64_t *loop_header, traza_err *err)
{
    if (algo == TRAZA_G_CYCLITUR && !loop_header) {
        traza_err_set(err, TRAZA_E_USAGE, "cyclitur needs a loop header");
        return NULL;
    }
    traza_gbuilder *b = calloc(1, sizeof *b);
    if (!b || ge_init(&b->e, algo != TRAZA_G_SEQUITUR) < 0) {
        free(b);
        traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        return NULL;
    }
    b->algo = algo;
    if (loop_header) {
        b->has_loop_header = 1;
        b->loop_header = *loop_header;
    }
    /* Cyclitur: the start-symbol sequence gets its own root from the beginning and is
     * compressed online (ReSequitur, same rule set) as cycles end, so memory follows
     * the grammar, not the number of cycles. */
    b->root = ge_root(&b->e);
    b->seq = b->root;
    if (b->root == GNIL) {
        traza_gbuilder_free(b);
        traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        return NULL;
    }
    return b;
}

void traza_gbuilder_free(traza_gbuilder *b)
{
    if (!b)
        return;
    ge_free(&b->e);
    free(b);
}

/* Appends a cycle start symbol to the sequence root. The current run v^n is held
 * back until a different symbol arrives, so the root receives whole runs v^n, as a
 * final pass over the run-length-encoded sequence would push them (pushing v^1 then
 * merging could first match the digram (x, v^1) and build another grammar).
 * Cycle bodies start with the loop header and hold it nowhere else, while every
 * start symbol but the first expands to a string beginning with it: the digrams of
 * the sequence root never meet those of the cycles, so interleaving the two gives
 * the grammar of the two-pass method. */
static int add_run(traza_gbuilder *b, uint64_t v, uint32_t kind)
{
    if (b->pend.rep && b->pend.v == v && b->pend.kind == kind) {
        b->pend.rep++;
        return 0;
    }
    if (b->pend.rep && ge_push(&b->e, b->seq, b->pend.v, b->pend.kind, b->pend.rep) < 0)
        return -1;
    b->pend.v = v;
    b->pend.kind = kind;
    b->pend.rep = 1;
    return 0;
}

/* Closes the open cycle: its start symbol is the single symbol of its body, or the
 * body's rule, kept as a cycle rule. */
static int end_cycle(traza_gbuilder *b)
{
    gengine *e = &b->e;
    uint32_t r = b->root, f = GFIRST(e, r);
    b->open = 0;
    if (GLAST(e, r) == f && GCNT(e, f) == 1) {
        uint64_t v = ge_val(e, f);
        uint32_t k = GKIND(e, f);
        if (k == GK_RULE)
            e->rules[v].pinned = 1;
        ge_drop_root(e, r);
        return add_run(b, v, k);
    }
    e->rules[r].pinned = 1;
    return add_run(b, r, GK_RULE);
}

int traza_gbuilder_push(traza_gbuilder *b, uint64_t sym, traza_err *err)
{
    if (b->algo == TRAZA_G_CYCLITUR && (!b->open || sym == b->loop_header)) {
        if (b->open && end_cycle(b) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        b->root = ge_root(&b->e);
        if (b->root == GNIL)
            return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        b->open = 1;
    }
    if (ge_push(&b->e, b->root, sym, GK_TERM, 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    return 0;
}

traza_grammar *traza_gbuilder_finish(traza_gbuilder *b, traza_err *err)
{
    traza_grammar *g = NULL;
    if (b->algo == TRAZA_G_CYCLITUR) {
        if (b->open && end_cycle(b) < 0) {
            traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
            goto out;
        }
        /* the last run of start symbols */
        if (b->pend.rep && ge_push(&b->e, b->seq, b->pend.v, b->pend.kind, b->pend.rep) < 0) {
            traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
            goto out;
        }
        b->root = b->seq;
    }
    g = ge_export(&b->e, b->root, b->algo, err);
    if (g && b->has_loop_header) {
        g->has_loop_header = 1;
        g->loop_header = b->loop_header;
    }
out:
    traza_gbuilder_free(b);
    return g;
}

traza_grammar *traza_grammar_build(const uint64_t *seq, size_t n, traza_galgo algo, const uint64_t *loop_header,
                                   traza_err *err)
{
    traza_gbuilder *b = traza_gbuilder_new(algo, loop_header, err);
    if (!b)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (traza_gbuilder_push(b, seq[i], err) < 0) {
            traza_gbuilder_free(b);
            return NULL;
        }
    return traza_gbuilder_finish(b, err);
}

size_t tzg_builder_nodes(const traza_gbuilder *b)
{
    return b->e.nnodes;
}
