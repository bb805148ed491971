/* Symbol names of a grammar (event type names of a stored trace), kept sorted by value. */
#include <stdlib.h>
#include <string.h>
#include "traza/grammar.h"

typedef struct pair {
    uint64_t v;
    const char *s;
} pair;

static int pair_cmp(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v;
}

int traza_grammar_set_names(traza_grammar *g, const uint64_t *vals, const char *const *names, size_t n,
                            traza_err *err)
{
    pair *p = malloc((n ? n : 1) * sizeof *p);
    uint64_t *nv = malloc((n ? n : 1) * sizeof *nv);
    char **ns = calloc(n ? n : 1, sizeof *ns);
    if (!p || !nv || !ns) {
        free(p), free(nv), free(ns);
        return traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    }
    for (size_t k = 0; k < n; k++) {
        size_t l = names[k] ? strlen(names[k]) : 0;
        if (l == 0 || l > 4096) {
            free(p), free(nv), free(ns);
            return traza_err_set(err, TRAZA_E_USAGE, "grammar: name of symbol %llu: %s", (unsigned long long)vals[k],
                                 l ? "longer than 4096 bytes" : "empty");
        }
        p[k].v = vals[k];
        p[k].s = names[k];
    }
    if (n)
        qsort(p, n, sizeof *p, pair_cmp);
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        if (k && p[k].v == p[k - 1].v) {
            rc = traza_err_set(err, TRAZA_E_USAGE, "grammar: symbol %llu named twice", (unsigned long long)p[k].v);
            break;
        }
        nv[k] = p[k].v;
        if (!(ns[k] = strdup(p[k].s)))
            rc = traza_err_set(err, TRAZA_E_NOMEM, "grammar: out of memory");
    }
    free(p);
    if (rc < 0) {
        for (size_t k = 0; k < n; k++)
            free(ns[k]);
        free(ns), free(nv);
        return -1;
    }
    for (size_t k = 0; k < g->nnames; k++)
        free(g->names[k]);
    free(g->names), free(g->name_vals);
    g->names = ns;
    g->name_vals = nv;
    g->nnames = n;
    return 0;
}

const char *traza_grammar_name(const traza_grammar *g, uint64_t v)
{
    size_t lo = 0, hi = g->nnames;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->name_vals[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->nnames && g->name_vals[lo] == v ? g->names[lo] : NULL;
}
