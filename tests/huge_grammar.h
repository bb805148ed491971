/* Hand-built Cyclitur grammars whose expansions would never fit in memory, for tests
 * of analyses that must read the grammar, never the expanded trace. Plain C (no
 * cmocka): the grammar tests, the server tests and helper_hugetzg share them. */
#ifndef TZ_TEST_HUGE_GRAMMAR_H
#define TZ_TEST_HUGE_GRAMMAR_H

#include <stdlib.h>
#include <string.h>
#include "traza/grammar.h"

/* A finished grammar of nrules bodies (rule 0 = S); rules whose bit is set in
 * `cycles` are cycle rules. NULL with err set (or err->msg empty: out of memory). */
static inline traza_grammar *tu_grammar_of(const traza_gsym *const *bodies, const size_t *lens, uint32_t nrules,
                                           uint32_t cycles, traza_err *err)
{
    size_t total = 0;
    for (uint32_t r = 0; r < nrules; r++)
        total += lens[r];
    traza_grammar *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->algo = TRAZA_G_CYCLITUR;
    g->has_loop_header = 1;
    g->loop_header = 0x100;
    g->nrules = nrules;
    g->off = malloc((nrules + 1) * sizeof *g->off);
    g->syms = calloc(total, sizeof *g->syms);
    g->is_cycle = calloc(nrules, 1);
    if (!g->off || !g->syms || !g->is_cycle) {
        traza_grammar_free(g);
        return NULL;
    }
    g->off[0] = 0;
    for (uint32_t r = 0; r < nrules; r++) {
        memcpy(g->syms + g->off[r], bodies[r], lens[r] * sizeof *g->syms);
        g->off[r + 1] = g->off[r] + lens[r];
        g->is_cycle[r] = (uint8_t)(cycles >> r & 1);
    }
    if (traza_grammar_finish(g, err) < 0) {
        traza_grammar_free(g);
        return NULL;
    }
    return g;
}

/* 10^10 + 2 symbols: R1 (cycle) -> loop_header 1 2 3 4; R2 (cycle) -> loop_header 9; R3 -> R1^1000000;
 * S -> R3^1000 R2 R3^1000; the one R2 cycle is cycle 10^9, at symbol 5*10^9. */
static inline traza_grammar *huge_grammar(traza_err *err)
{
    static const traza_gsym S[] = {{3, 1000, 1}, {2, 1, 1}, {3, 1000, 1}};
    static const traza_gsym A[] = {{0x100, 1, 0}, {1, 1, 0}, {2, 1, 0}, {3, 1, 0}, {4, 1, 0}};
    static const traza_gsym B[] = {{0x100, 1, 0}, {9, 1, 0}};
    static const traza_gsym C[] = {{1, 1000000, 1}};
    const traza_gsym *bodies[] = {S, A, B, C};
    const size_t lens[] = {3, 5, 2, 1};
    return tu_grammar_of(bodies, lens, 4, 1u << 1 | 1u << 2, err);
}

/* 3*10^10 symbols, 8*10^9 cycles, normal behaviour A B A C repeated and one
 * A A B B C C at symbol 1.5*10^10 (cycle 4*10^9): R1 = A (loop_header 1 2 3 4), R2 = B (loop_header 9),
 * R3 = C (loop_header 7 7) are cycle rules; R4 -> R1 R2 R1 R3; R5 -> R4^1000;
 * R6 -> R5^1000000; S -> R6 R1^2 R2^2 R3^2 R6. */
static inline traza_grammar *alt_grammar(traza_err *err)
{
    static const traza_gsym S[] = {{6, 1, 1}, {1, 2, 1}, {2, 2, 1}, {3, 2, 1}, {6, 1, 1}};
    static const traza_gsym A[] = {{0x100, 1, 0}, {1, 1, 0}, {2, 1, 0}, {3, 1, 0}, {4, 1, 0}};
    static const traza_gsym B[] = {{0x100, 1, 0}, {9, 1, 0}};
    static const traza_gsym C[] = {{0x100, 1, 0}, {7, 2, 0}};
    static const traza_gsym N[] = {{1, 1, 1}, {2, 1, 1}, {1, 1, 1}, {3, 1, 1}};
    static const traza_gsym M[] = {{4, 1000, 1}};
    static const traza_gsym T[] = {{5, 1000000, 1}};
    const traza_gsym *bodies[] = {S, A, B, C, N, M, T};
    const size_t lens[] = {5, 5, 2, 2, 4, 1, 1};
    return tu_grammar_of(bodies, lens, 7, 1u << 1 | 1u << 2 | 1u << 3, err);
}

#endif
