/* The line model's skeleton dictionary (SKEL), front-coded (format version 6).
 *
 * Skeletons are line templates, and most share a long prefix with an earlier one
 * (`<tick> tic ES  (<pc>:<pc>) A svc_s:          ` before each instruction of an ES
 * trace). LZMA finds those repeats as matches and codes them in few bytes, but its
 * optimum parser spends about as long on a long match as on the bytes it covers: the
 * 8-15 KB of skeletons of a Tarmac sample took 2-5 ms to pack, the largest single
 * stream of the compression. Sent as (longest common prefix with an earlier skeleton,
 * which one, the rest), the stream is 2.3-4.5 times shorter and packs to the same size
 * (within 0.5 %) 3-8 times faster.
 *
 * Entry i (skeletons in id order): uv lcp; when lcp > 0, uv ref in 1..i (the prefix is
 * the first lcp bytes of skeleton i - ref, which has at least lcp bytes); uv length of
 * the rest; the rest. */
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"

typedef struct skey {
    const uint8_t *p;
    size_t n;
    uint32_t id;
} skey;

static int skey_cmp(const void *a, const void *b)
{
    const skey *x = a, *y = b;
    int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
    if (c)
        return c;
    return x->n < y->n ? -1 : x->n > y->n ? 1 : (x->id > y->id) - (x->id < y->id);
}

#define RECENT 16

static size_t lcp(const skey *a, const skey *b)
{
    size_t m = a->n < b->n ? a->n : b->n, l = 0;
    while (l < m && a->p[l] == b->p[l])
        l++;
    return l;
}

/* The earlier skeleton with the longest common prefix: in sorted order the common
 * prefix with s shrinks with the distance from s, so it is the nearest one on either
 * side whose id is smaller (found for all at once with a stack). */
int itf_skels_front(tz_buf *out, const itf_kmap *m)
{
    size_t n = m->count;
    if (n == 0)
        return 0;
    skey *k = malloc(n * sizeof *k);
    uint32_t *near = malloc(2 * n * sizeof *near), *stack = malloc(n * sizeof *stack);
    size_t *pos = malloc(n * sizeof *pos);
    if (!k || !near || !stack || !pos) {
        free(k), free(near), free(stack), free(pos);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        k[i].p = itf_kmap_key(m, i, &k[i].n);
        k[i].id = (uint32_t)i;
    }
    qsort(k, n, sizeof *k, skey_cmp);
    /* near[2 id], near[2 id + 1]: sorted position + 1 of the nearest smaller id to the
     * left and to the right of that id's position (0: none) */
    for (int dir = 0; dir < 2; dir++) {
        size_t top = 0;
        for (size_t s = 0; s < n; s++) {
            size_t at = dir ? n - 1 - s : s;
            while (top && k[stack[top - 1]].id > k[at].id)
                top--;
            near[2 * k[at].id + (size_t)dir] = top ? stack[top - 1] + 1 : 0;
            stack[top++] = (uint32_t)at;
        }
    }
    for (size_t s = 0; s < n; s++)
        pos[k[s].id] = s;
    for (size_t i = 0; i < n; i++) {
        const skey *me = &k[pos[i]];
        size_t best = 0, ref = 0;
        /* candidates: the two neighbours, and the last RECENT skeletons (an equally
         * long prefix from a nearer one makes a smaller, more repetitive ref) */
        for (size_t c = 0; c < 2 + RECENT; c++) {
            const skey *o;
            if (c < 2) {
                uint32_t q = near[2 * i + c];
                if (!q)
                    continue;
                o = &k[q - 1];
            } else if (c - 2 < i)
                o = &k[pos[i - (c - 1)]];
            else
                break;
            size_t l = lcp(me, o);
            if (l > best || (l == best && l > 0 && i - o->id < ref))
                best = l, ref = i - o->id;
        }
        itf_put_uv(out, ref);
        if (ref)
            itf_put_uv(out, best);
        itf_put_uv(out, me->n - best);
        tz_buf_put(out, me->p + best, me->n - best);
    }
    free(k), free(near), free(stack), free(pos);
    return out->oom ? -1 : 0;
}

int itf_skels_unfront(const uint8_t *in, size_t n, tz_buf *out, const char **why)
{
    itf_rd d = {in, in + n, 0};
    size_t count = 0, cap = 0;
    size_t *off = NULL, *len = NULL; /* where skeleton i's bytes are in out, and how many */
    int rc = -1;
    *why = NULL;
    while (d.p < d.end) {
        uint64_t ref = itf_get_uv(&d), l = 0;
        if (!d.bad && ref)
            l = itf_get_uv(&d);
        uint64_t rest = d.bad ? 0 : itf_get_uv(&d);
        if (d.bad) {
            *why = "skeleton entry cut short";
            goto out;
        }
        if (ref && (l == 0 || ref > count || l > len[count - ref])) {
            *why = "skeleton prefix reference out of range";
            goto out;
        }
        if (rest > (uint64_t)(d.end - d.p)) {
            *why = "skeleton length";
            goto out;
        }
        if (l + rest + out->len + 10 > ITF_MAX_RAW) {
            *why = "skeletons larger than a stream may be";
            goto out;
        }
        if (count == cap) {
            size_t nc = cap ? 2 * cap : 256;
            size_t *no = realloc(off, nc * sizeof *no);
            if (no)
                off = no;
            size_t *nl = no ? realloc(len, nc * sizeof *nl) : NULL;
            if (!nl)
                goto out;
            len = nl;
            cap = nc;
        }
        itf_put_uv(out, l + rest);
        if (tz_buf_reserve(out, (size_t)(l + rest)) < 0)
            goto out;
        off[count] = out->len;
        len[count] = (size_t)(l + rest);
        if (l) /* (the reference lies before the end of out: no overlap) */
            memcpy(out->s + out->len, out->s + off[count - ref], (size_t)l);
        memcpy(out->s + out->len + l, d.p, (size_t)rest);
        out->len += (size_t)(l + rest);
        out->s[out->len] = '\0';
        d.p += rest;
        count++;
    }
    rc = out->oom ? -1 : 0;
out:
    free(off);
    free(len);
    return rc;
}
