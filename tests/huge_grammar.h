/* A Cyclitur grammar whose expansion is 10^10 symbols, for tests of analyses that
 * must read the grammar, never the expanded trace. */
#ifndef TZ_TEST_HUGE_GRAMMAR_H
#define TZ_TEST_HUGE_GRAMMAR_H

#include "testutil.h"
#include "traza/grammar.h"

static inline traza_grammar *huge_grammar(void)
{
    /* R1 (cycle) -> lh 1 2 3 4; R2 (cycle) -> lh 9; R3 -> R1^1000000;
     * S -> R3^1000 R2 R3^1000  : |w| = 2 * 5e9 + 2 */
    traza_grammar *g = calloc(1, sizeof *g);
    g->algo = TRAZA_G_CYCLITUR;
    g->has_lh = 1;
    g->lh = 0x100;
    g->nrules = 4;
    g->off = malloc(5 * sizeof *g->off);
    g->syms = calloc(11, sizeof *g->syms);
    g->is_cycle = calloc(4, 1);
    traza_gsym S[] = {{3, 1000, 1}, {2, 1, 1}, {3, 1000, 1}};
    traza_gsym A[] = {{0x100, 1, 0}, {1, 1, 0}, {2, 1, 0}, {3, 1, 0}, {4, 1, 0}};
    traza_gsym B[] = {{0x100, 1, 0}, {9, 1, 0}};
    traza_gsym C[] = {{1, 1000000, 1}};
    g->off[0] = 0;
    memcpy(g->syms, S, sizeof S);
    g->off[1] = 3;
    memcpy(g->syms + 3, A, sizeof A);
    g->off[2] = 8;
    memcpy(g->syms + 8, B, sizeof B);
    g->off[3] = 10;
    memcpy(g->syms + 10, C, sizeof C);
    g->off[4] = 11;
    g->is_cycle[1] = g->is_cycle[2] = 1;
    traza_err err;
    if (traza_grammar_finish(g, &err) < 0)
        fail_msg("%s", err.msg);
    return g;
}

#endif
