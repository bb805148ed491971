/* Where two stretches of a grammar's expansion differ, symbol by symbol: the shortest
 * edit script (insertions and deletions) by Myers' O(ND) difference algorithm ("An
 * O(ND) Difference Algorithm and Its Variations", 1986) over the two expanded
 * stretches, after their common prefix and suffix are set aside. Two cycles of a
 * firmware loop that differ by one inserted and one deleted instruction out of
 * hundreds give an edit script of two lines, with the offsets where they sit. */
#include <stdlib.h>
#include <string.h>
#include "grammar/gram_internal.h"
#include "util/util.h"

/* Myers' forward search, keeping V of each round for the way back: D rounds cost
 * O(D^2) memory, which max_edits bounds. */
static int myers(const uint64_t *a, size_t n, const uint64_t *b, size_t m, size_t max_edits, size_t base_a,
                 size_t base_b, traza_gedit **out, size_t *nout, traza_err *err)
{
    size_t maxd = n + m < max_edits ? n + m : max_edits;
    size_t off = maxd + 1;
    /* round d keeps V[k] for k in [-d, d]: stored at hist[d] (2d+1 entries) */
    int64_t **hist = calloc(maxd + 1, sizeof *hist);
    int64_t *v = malloc((2 * off + 1) * sizeof *v);
    if (!hist || !v) {
        free(hist), free(v);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    v[off + 1] = 0;
    size_t dfound = (size_t)-1;
    int rc = 0;
    for (size_t d = 0; d <= maxd && dfound == (size_t)-1; d++) {
        for (int64_t k = -(int64_t)d; k <= (int64_t)d; k += 2) {
            int64_t x;
            if (k == -(int64_t)d || (k != (int64_t)d && v[off + k - 1] < v[off + k + 1]))
                x = v[off + k + 1]; /* down: an insertion */
            else
                x = v[off + k - 1] + 1; /* right: a deletion */
            int64_t y = x - k;
            while (x < (int64_t)n && y < (int64_t)m && a[x] == b[y])
                x++, y++;
            v[off + k] = x;
            if (x >= (int64_t)n && y >= (int64_t)m) {
                dfound = d;
                break;
            }
        }
        hist[d] = malloc((2 * d + 1) * sizeof **hist);
        if (!hist[d]) {
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto done;
        }
        for (int64_t k = -(int64_t)d; k <= (int64_t)d; k++)
            hist[d][k + (int64_t)d] = v[off + k];
    }
    if (dfound == (size_t)-1) {
        rc = traza_err_set(err, TRAZA_E_USAGE, "the stretches differ by more than %zu edits", max_edits);
        goto done;
    }
    traza_gedit *ed = malloc((dfound ? dfound : 1) * sizeof *ed);
    if (!ed) {
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    /* the way back: each round d > 0 adds one edit */
    int64_t x = (int64_t)n, y = (int64_t)m;
    for (size_t d = dfound; d > 0; d--) {
        const int64_t *pv = hist[d - 1];
        int64_t k = x - y, pd = (int64_t)d - 1;
        int down = k == -(int64_t)d || (k != (int64_t)d && pv[k - 1 + pd] < pv[k + 1 + pd]);
        int64_t pk = down ? k + 1 : k - 1;
        int64_t px = pv[pk + pd], py = px - pk;
        traza_gedit *e = &ed[d - 1];
        if (down) { /* b[py] inserted */
            e->op = '+';
            e->off_a = base_a + (uint64_t)px;
            e->off_b = base_b + (uint64_t)py;
            e->value = b[py];
        } else { /* a[px] deleted */
            e->op = '-';
            e->off_a = base_a + (uint64_t)px;
            e->off_b = base_b + (uint64_t)py;
            e->value = a[px];
        }
        x = px, y = py;
    }
    *out = ed;
    *nout = dfound;
done:
    for (size_t d = 0; d <= maxd; d++)
        free(hist[d]);
    free(hist);
    free(v);
    return rc < 0 ? -1 : 0;
}

int traza_grammar_diff(const traza_grammar *g, uint64_t a, uint64_t la, uint64_t b, uint64_t lb, size_t max_edits,
                       traza_gedit **out, size_t *n, traza_err *err)
{
    *out = NULL;
    *n = 0;
    uint64_t total = g->len[0];
    if (a > total || la > total - a || b > total || lb > total - b)
        return traza_err_set(err, TRAZA_E_USAGE, "stretch past the end of the sequence (%llu symbols)",
                             (unsigned long long)total);
    if (la > TRAZA_GDIFF_MAX_LEN || lb > TRAZA_GDIFF_MAX_LEN)
        return traza_err_set(err, TRAZA_E_USAGE, "stretches of %llu and %llu symbols; at most %llu each",
                             (unsigned long long)la, (unsigned long long)lb, (unsigned long long)TRAZA_GDIFF_MAX_LEN);
    uint64_t *A = NULL, *B = NULL;
    int rc = -1;
    if (tzg_expand(g, a, la, &A, err) < 0 || tzg_expand(g, b, lb, &B, err) < 0)
        goto out;
    size_t na = (size_t)la, nb = (size_t)lb, pre = 0, suf = 0;
    while (pre < na && pre < nb && A[pre] == B[pre])
        pre++;
    while (suf < na - pre && suf < nb - pre && A[na - 1 - suf] == B[nb - 1 - suf])
        suf++;
    rc = myers(A + pre, na - pre - suf, B + pre, nb - pre - suf, max_edits, pre, pre, out, n, err);
out:
    free(A);
    free(B);
    return rc;
}
