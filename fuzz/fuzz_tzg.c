/* Fuzzes the .tzg reader: any input is rejected with an error or yields a valid
 * grammar whose analyses and random access run without faults. */
#include <stdint.h>
#include <stdlib.h>
#include "grammar/gram_internal.h"
#include "traza/grammar.h"

static int sink(void *u, uint64_t s)
{
    (void)s;
    return ++*(int *)u > 4096;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    traza_err err;
    /* inputs starting with 'P' .. 'S' go to the payload decoder directly, past the
     * checksum a fuzzer could not forge (flags = data[0] - 'P': bit 0 a loop header,
     * bit 1 a names section) */
    traza_grammar *g = size && data[0] >= 'P' && data[0] <= 'S'
                           ? tzg_decode_payload(data + 1, size - 1, data[0] - 'P', &err)
                           : traza_tzg_decode(data, size, &err);
    if (g && g->nnames)
        (void)traza_grammar_name(g, g->name_vals[g->nnames - 1]);
    if (!g)
        return 0;
    uint64_t n = g->len[0], v;
    if (n) {
        traza_grammar_at(g, n / 2, &v, &err);
        int cnt = 0;
        traza_grammar_extract(g, n / 3, n / 3 + (n - n / 3 < 4096 ? n - n / 3 : 4096), sink, &cnt, &err);
    }
    if (g->has_loop_header && g->off[g->nrules] < 4096) {
        traza_gcycle *tab;
        size_t nt;
        if (traza_grammar_cycles(g, g->loop_header, &tab, &nt, &err) == 0) {
            traza_grammar *cg;
            uint64_t *wlen;
            if (traza_grammar_cycle_grammar(g, g->loop_header, tab, nt, &cg, &wlen, &err) == 0) {
                /* the runs are as many as the cycles (a few bytes make 10^9 of them):
                 * listed when the cycle grammar says they are few, as the server does */
                traza_gcrun *runs;
                size_t nr;
                if (nt && cg->len[0] <= 4096 && traza_grammar_cycle_runs(g, g->loop_header, tab, nt, &runs, &nr, &err) == 0)
                    free(runs);
                traza_ganomaly *an;
                size_t na;
                traza_ganomaly_info info;
                if (traza_grammar_anomalies(cg, wlen, tab, nt, 0.05, 1000, &an, &na, &info, &err) == 0)
                    free(an);
                free(wlen);
                traza_grammar_free(cg);
            }
            free(tab);
        }
    }
    traza_grammar_free(g);
    return 0;
}
