/* Writes a hand-built Cyclitur grammar to a .tzg (argv[1]): 3*10^10 symbols, 8*10^9
 * cycles, normal behaviour A B A C repeated and one A A B B C C at symbol 1.5*10^10
 * (cycle 4*10^9). For the CLI test that anomalies/cycles never expand the trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "traza/grammar.h"
#include "huge_grammar.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: helper_hugetzg OUT.tzg\n");
        return 2;
    }
    traza_err err;
    traza_err_clear(&err);
    traza_grammar *g = alt_grammar(&err);
    if (!g || traza_tzg_write(g, argv[1], TRAZA_TZG_ZSTD, &err) < 0) {
        fprintf(stderr, "helper_hugetzg: %s\n", err.msg);
        traza_grammar_free(g);
        return 1;
    }
    traza_grammar_free(g);
    return 0;
}
