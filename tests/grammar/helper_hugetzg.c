/* Writes a hand-built Cyclitur grammar to a .tzg (argv[1]): 3*10^10 symbols, 8*10^9
 * cycles, normal behaviour A B A C repeated and one A A B B C C at symbol 1.5*10^10
 * (cycle 4*10^9). For the CLI test that anomalies/cycles never expand the trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "traza/grammar.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: helper_hugetzg OUT.tzg\n");
        return 2;
    }
    static const traza_gsym S[] = {{6, 1, 1}, {1, 2, 1}, {2, 2, 1}, {3, 2, 1}, {6, 1, 1}};
    static const traza_gsym A[] = {{0x100, 1, 0}, {1, 1, 0}, {2, 1, 0}, {3, 1, 0}, {4, 1, 0}};
    static const traza_gsym B[] = {{0x100, 1, 0}, {9, 1, 0}};
    static const traza_gsym C[] = {{0x100, 1, 0}, {7, 2, 0}};
    static const traza_gsym N[] = {{1, 1, 1}, {2, 1, 1}, {1, 1, 1}, {3, 1, 1}};
    static const traza_gsym M[] = {{4, 1000, 1}};
    static const traza_gsym T[] = {{5, 1000000, 1}};
    const traza_gsym *bodies[] = {S, A, B, C, N, M, T};
    const size_t lens[] = {5, 5, 2, 2, 4, 1, 1};
    traza_grammar *g = calloc(1, sizeof *g);
    if (!g)
        return 1;
    g->algo = TRAZA_G_CYCLITUR;
    g->has_lh = 1;
    g->lh = 0x100;
    g->nrules = 7;
    g->off = malloc(8 * sizeof *g->off);
    g->syms = calloc(20, sizeof *g->syms);
    g->is_cycle = calloc(7, 1);
    if (!g->off || !g->syms || !g->is_cycle)
        return 1;
    g->off[0] = 0;
    for (int r = 0; r < 7; r++) {
        memcpy(g->syms + g->off[r], bodies[r], lens[r] * sizeof *g->syms);
        g->off[r + 1] = g->off[r] + lens[r];
    }
    g->is_cycle[1] = g->is_cycle[2] = g->is_cycle[3] = 1;
    traza_err err;
    if (traza_grammar_finish(g, &err) < 0 || traza_tzg_write(g, argv[1], TRAZA_TZG_ZSTD, &err) < 0) {
        fprintf(stderr, "helper_hugetzg: %s\n", err.msg);
        traza_grammar_free(g);
        return 1;
    }
    traza_grammar_free(g);
    return 0;
}
