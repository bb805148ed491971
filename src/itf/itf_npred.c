/* ITFComp line model: adaptive prediction of the numbers of a line skeleton.
 * Each number (slot k of skeleton S) has four predictors: the last value of the same
 * slot (P0), column k of the previous line (P1), column k of the last line of the same
 * class (skeleton prefix up to its second number; P2), the previous number of this
 * line (P3). Per slot, the predictor with the smallest running cost of the residuals
 * seen so far is used; writer and reader update the same state, so the choice is
 * never stored. All state restarts at each chunk (random access). */
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"

void itf_np_init(itf_np *np)
{
    memset(np, 0, sizeof *np);
    itf_kmap_init(&np->classes);
}

void itf_np_free(itf_np *np)
{
    free(np->base);
    free(np->nn);
    free(np->cls);
    free(np->gen);
    free(np->last);
    free(np->cost);
    free(np->cls_last);
    free(np->cls_gen);
    itf_kmap_free(&np->classes);
    memset(np, 0, sizeof *np);
}

long itf_np_add_skel(itf_np *np, const uint8_t *k, size_t len, size_t nn)
{
    size_t id = np->nskel, cut = len, seen = 0;
    for (size_t i = 0; i + 1 < len; i++)
        if (k[i] == 1) {
            if (k[i + 1] != 0 && ++seen == 2) {
                cut = i;
                break;
            }
            i += k[i + 1] ? 2 : 1;
        }
    int isnew;
    long c = itf_kmap_intern(&np->classes, k, cut, &isnew);
    if (c < 0 || TZ_GROW(np->base, np->c1, id + 1) < 0 || TZ_GROW(np->nn, np->c2, id + 1) < 0 ||
        TZ_GROW(np->cls, np->c3, id + 1) < 0 || TZ_GROW(np->gen, np->c4, id + 1) < 0 ||
        TZ_GROW(np->last, np->c5, np->nslots + nn + 1) < 0 ||
        TZ_GROW(np->cost, np->c6, (np->nslots + nn + 1) * ITF_NP_PRED) < 0 ||
        TZ_GROW(np->cls_last, np->c7, ((size_t)c + 1) * ITF_NP_COLS) < 0 || TZ_GROW(np->cls_gen, np->c8, (size_t)c + 1) < 0)
        return -1;
    if (isnew)
        np->cls_gen[c] = 0;
    np->base[id] = (uint32_t)np->nslots;
    np->nn[id] = (uint32_t)nn;
    np->cls[id] = (uint32_t)c;
    np->gen[id] = 0;
    np->nslots += nn;
    np->nskel++;
    return (long)id;
}

void itf_np_chunk(itf_np *np, uint64_t chunkno)
{
    np->chunk = chunkno + 1;
    np->prevn = 0;
    memset(np->prev, 0, sizeof np->prev);
}

void itf_np_begin(itf_np *np, uint32_t id)
{
    if (np->gen[id] != np->chunk) {
        np->gen[id] = np->chunk;
        memset(np->last + np->base[id], 0, np->nn[id] * sizeof *np->last);
        memset(np->cost + (size_t)np->base[id] * ITF_NP_PRED, 0, np->nn[id] * ITF_NP_PRED * sizeof *np->cost);
    }
    uint32_t c = np->cls[id];
    if (np->cls_gen[c] != np->chunk) {
        np->cls_gen[c] = np->chunk;
        memset(np->cls_last + (size_t)c * ITF_NP_COLS, 0, ITF_NP_COLS * sizeof *np->cls_last);
    }
}

static void cands(const itf_np *np, uint32_t id, size_t k, const uint64_t *cur, uint64_t *p)
{
    p[0] = np->last[np->base[id] + k];
    p[1] = k < ITF_NP_COLS && k < np->prevn ? np->prev[k] : p[0];
    p[2] = k < ITF_NP_COLS ? np->cls_last[(size_t)np->cls[id] * ITF_NP_COLS + k] : p[0];
    p[3] = k ? cur[k - 1] : p[0];
}

uint64_t itf_np_predict(const itf_np *np, uint32_t id, size_t k, const uint64_t *cur)
{
    uint64_t p[ITF_NP_PRED];
    cands(np, id, k, cur, p);
    const uint32_t *c = np->cost + ((size_t)np->base[id] + k) * ITF_NP_PRED;
    int best = 0;
    for (int i = 1; i < ITF_NP_PRED; i++)
        if (c[i] < c[best])
            best = i;
    return p[best];
}

/* Bits of the zig-zag form of a residual (0 for 0). */
static uint32_t bits(uint64_t d)
{
    uint64_t z = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
    return z ? 64u - (uint32_t)__builtin_clzll(z) : 0u;
}

void itf_np_update(itf_np *np, uint32_t id, size_t k, const uint64_t *cur)
{
    uint64_t p[ITF_NP_PRED];
    cands(np, id, k, cur, p);
    uint32_t *c = np->cost + ((size_t)np->base[id] + k) * ITF_NP_PRED;
    for (int i = 0; i < ITF_NP_PRED; i++)
        c[i] = c[i] - (c[i] >> 3) + 16 * bits(cur[k] - p[i]);
    np->last[np->base[id] + k] = cur[k];
}

void itf_np_end(itf_np *np, uint32_t id, const uint64_t *cur)
{
    size_t nn = np->nn[id], m = nn < ITF_NP_COLS ? nn : ITF_NP_COLS;
    memcpy(np->prev, cur, m * sizeof *cur);
    np->prevn = m;
    memcpy(np->cls_last + (size_t)np->cls[id] * ITF_NP_COLS, cur, m * sizeof *cur);
}
