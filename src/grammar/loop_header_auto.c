/* --loop-header auto: choose the loop header that gives the smallest grammar.
 *
 * Candidates are the most frequent symbols of a sample of the input (a loop header
 * runs once per cycle, so it is among the frequent addresses). Each candidate's
 * Cyclitur grammar of the sample is built; the smallest Size(G) wins, ties going to
 * the candidate with the most regular cycles (fewer distinct cycles). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "traza/grammar.h"
#include "util/util.h"

#define NCAND 8

int traza_grammar_pick_loop_header(const uint64_t *seq, size_t n, size_t sample, uint64_t *loop_header, char *why, size_t whysize,
                          traza_err *err)
{
    if (n == 0)
        return traza_err_set(err, TRAZA_E_USAGE, "loop header auto: the input is empty");
    if (sample == 0 || sample > n)
        sample = n;
    tz_imap cnt;
    tz_imap_init(&cnt);
    for (size_t i = 0; i < sample; i++) {
        int64_t v = 0;
        tz_imap_get(&cnt, (int64_t)seq[i], &v);
        if (tz_imap_put(&cnt, (int64_t)seq[i], v + 1) < 0) {
            tz_imap_free(&cnt);
            return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
        }
    }
    uint64_t cand[NCAND];
    int64_t cf[NCAND];
    size_t nc = 0;
    for (size_t i = 0; i < cnt.cap; i++) {
        if (!cnt.used[i])
            continue;
        size_t pos = nc < NCAND ? nc++ : NCAND;
        if (pos == NCAND) {
            if (cnt.vals[i] <= cf[NCAND - 1])
                continue;
            pos = NCAND - 1;
        }
        while (pos > 0 && cf[pos - 1] < cnt.vals[i]) {
            if (pos < NCAND) {
                cand[pos] = cand[pos - 1];
                cf[pos] = cf[pos - 1];
            }
            pos--;
        }
        cand[pos] = (uint64_t)cnt.keys[i];
        cf[pos] = cnt.vals[i];
    }
    tz_imap_free(&cnt);
    tz_buf b;
    tz_buf_init(&b);
    traza_grammar *sg = traza_grammar_build(seq, sample, TRAZA_G_SEQUITUR, NULL, err);
    if (!sg)
        return -1;
    uint64_t seqsize = sg->off[sg->nrules] + sg->nrules;
    traza_grammar_free(sg);
    tz_buf_printf(&b, "tried the %zu most frequent symbols on the first %zu symbols (Sequitur Size %llu):", nc,
                  sample, (unsigned long long)seqsize);
    uint64_t best = UINT64_MAX, bestd = UINT64_MAX;
    size_t bi = 0;
    for (size_t i = 0; i < nc; i++) {
        traza_grammar *g = traza_grammar_build(seq, sample, TRAZA_G_CYCLITUR, &cand[i], err);
        if (!g) {
            tz_buf_free(&b);
            return -1;
        }
        traza_gstats st;
        if (traza_grammar_stats(g, &st, err) < 0) {
            traza_grammar_free(g);
            tz_buf_free(&b);
            return -1;
        }
        traza_grammar_free(g);
        tz_buf_printf(&b, " 0x%llx (%lld times): Size %llu, %llu distinct cycles;", (unsigned long long)cand[i],
                      (long long)cf[i], (unsigned long long)st.size, (unsigned long long)st.distinct_cycles);
        if (st.size < best || (st.size == best && st.distinct_cycles < bestd)) {
            best = st.size;
            bestd = st.distinct_cycles;
            bi = i;
        }
    }
    *loop_header = cand[bi];
    tz_buf_printf(&b, " chose 0x%llx: the smallest grammar (Size %llu)", (unsigned long long)cand[bi],
                  (unsigned long long)best);
    if (why && whysize)
        snprintf(why, whysize, "%s", b.s ? b.s : "");
    tz_buf_free(&b);
    return 0;
}
