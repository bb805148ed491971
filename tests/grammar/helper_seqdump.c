/* Reads decimal symbols, one per line, on stdin; builds the Sequitur grammar and
 * prints it like `sequitur -d -p` (rules numbered in the order they are first met
 * from S; terminals as [v], rules as their number). Used by the differential test
 * against the reference implementation (t_seqref.sh, needs SEQUITUR_REF). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "traza/grammar.h"

int main(void)
{
    size_t n = 0, cap = 1024;
    uint64_t *seq = malloc(cap * sizeof *seq);
    char line[128];
    if (!seq)
        return 1;
    while (fgets(line, sizeof line, stdin)) {
        char *end;
        unsigned long long v = strtoull(line, &end, 10);
        if (end == line)
            continue;
        if (n == cap) {
            cap *= 2;
            uint64_t *ns = realloc(seq, cap * sizeof *seq);
            if (!ns)
                return 1;
            seq = ns;
        }
        seq[n++] = v;
    }
    traza_err err = {0};
    traza_grammar *g = traza_grammar_build(seq, n, TRAZA_G_SEQUITUR, NULL, &err);
    free(seq);
    if (!g) {
        fprintf(stderr, "helper_seqdump: %s\n", err.msg);
        return 1;
    }
    for (uint32_t r = 0; r < g->nrules; r++) {
        printf("%" PRIu32 " -> ", r);
        for (uint64_t k = g->off[r]; k < g->off[r + 1]; k++) {
            if (g->syms[k].is_rule)
                printf("%" PRIu64 " ", g->syms[k].value);
            else
                printf("[%" PRIu64 "] ", g->syms[k].value);
        }
        printf("\n");
    }
    traza_grammar_free(g);
    return 0;
}
