/* ITFComp line model: adaptive prediction of the skeletons and numbers of text lines
 * (Tarmac and unknown dialects).
 *
 * Each number (slot k of skeleton S) has candidate predictors:
 *   P0 the last value of the same slot, P1 column k of the previous line, P2 column k
 *   of the last line of the same class (skeleton prefix up to its second number), P3
 *   the previous number of this line;
 * and from format version 4 on, the record contexts:
 *   P4 the last value of this slot in the same context, P5 column k+1 of the previous
 *   line, P6 the last number of the previous line (a loaded value re-appearing in
 *   the register line that follows) and P7, in a memory access line (Tarmac LD/ST,
 *   MR<n>/MW<n>), the value last stored at or loaded from that address in the same
 *   bus lane layout (a memory map: most loads read what the program stored).
 *   Measured and left out: a stride candidate (last value plus last step; +0.5-3 % on
 *   the Tarmac samples) and "P0 plus the context's last difference to P0" (ES -4 %,
 *   gem5 +15 %): their wins were smaller than the noise they add to the choice.
 * A context is (pc of the current record, line number within the record, slot), kept
 * as a line context (one hash lookup per line) with its slots in an arena: the
 * instruction at a pc writes the same registers and, often, the same values or
 * strides each time it runs, so its opcode, its immediates and its lines come back
 * exactly. Before a record-start line has given its pc, the context is still the
 * previous record's: "what came after pc X last time" predicts the next pc and tick.
 * Per slot, the candidate with the smallest running cost of its residuals is used: the
 * sum of the context's costs and the skeleton slot's once the context has been seen
 * (the context alone over-fits its first few values), the skeleton slot's before. (A
 * first version mixed pc, line and slot with XOR and shifts; different pcs and slots
 * then shared entries, which cost 30 % on the AArch64 samples.) Writer and
 * reader update the same state, so the choice is never stored. Version 4 also predicts
 * each line's skeleton from the context (pc, line number): the writer stores 0 for a
 * hit. Version 7 charges the candidates that missed a right prediction a flat 512
 * (no bit counts) and lets the skeleton slots' costs forget faster. Version 9, in
 * Tarmac dialects, makes candidate 7 the semantic model's prediction wherever it has
 * one (itf_sem.h: an instruction's effects, read from its text). Version 10 codes a
 * right semantic prediction as 0 without charging the candidates (np_semhit in
 * itf_npline.c). All state restarts at each chunk (random access). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"
#include "itf/itf_sem.h"

void itf_np_init(itf_np *np, int version)
{
    memset(np, 0, sizeof *np);
    itf_kmap_init(&np->classes);
    itf_kmap_init(&np->memclasses);
    np->version = version;
    np->v4 = itf_has_record_contexts((unsigned)version);
    np->v10 = itf_has_semantic_zero((unsigned)version);
    np->hitk = itf_has_hit_cost_rules((unsigned)version) ? ITF_NP_HITK : 0;
    np->dc = itf_has_hit_cost_rules((unsigned)version) ? 2 : 3;
}

int itf_np_dialect(itf_np *np, int dialect)
{
    return itf_has_semantics((unsigned)np->version) ? itf_sem_init(&np->sem, dialect) : 0;
}

void itf_np_free(itf_np *np)
{
    itf_sem_free(&np->sem);
    free(np->sk);
    free(np->last);
    free(np->cost);
    free(np->cls_last);
    free(np->cls_gen);
    free(np->tab);
    free(np->tix);
    free(np->slots);
    free(np->mtab);
    itf_kmap_free(&np->memclasses);
    itf_kmap_free(&np->classes);
    memset(np, 0, sizeof *np);
}

int itf_skel_is_record_start_b(tz_buf *b, int dialect, const uint8_t *k, size_t len, size_t nn)
{
    static const uint64_t zeros[ITF_MAX_NUMS] = {0};
    b->len = 0;
    if (nn > ITF_MAX_NUMS || itf_skel_render(b, k, len, zeros, nn) < 0)
        return b->oom || nn <= ITF_MAX_NUMS ? -1 : 0;
    return itf_is_record_start(dialect, b->s ? b->s : "", b->len);
}

int itf_skel_is_record_start(int dialect, const uint8_t *k, size_t len, size_t nn)
{
    tz_buf b = {0};
    int rs = itf_skel_is_record_start_b(&b, dialect, k, len, nn);
    tz_buf_free(&b);
    return rs;
}

/* The record's pc: the first hexadecimal number of 8 or more digits. */
static int find_pcslot(const uint8_t *k, size_t len)
{
    int slot = 0;
    for (size_t i = 0; i < len; i += itf_skel_step(k, len, i)) {
        if (!itf_skel_isnum(k, len, i))
            continue;
        if ((k[i + 1] == NK_HEXL || k[i + 1] == NK_HEXU) && k[i + 2] >= 8)
            return slot;
        slot++;
    }
    return -1;
}

/* A memory access skeleton has a literal word LD, ST, MR<digits> or MW<digits>; its
 * class is the skeleton with that word made LD / MR<digits> (loads then find what
 * stores of the same layout wrote), its address the first number after the word.
 * Returns the address slot (class id in *cls, *store set for ST and MW<n>) or -1. */
static int find_memslot(itf_np *np, const uint8_t *k, size_t len, uint32_t *cls, int *store)
{
    /* (most skeletons have none of these words: four searches instead of the loop) */
    if (itf_skel_find(k, len, "LD ", NULL) < 0 && itf_skel_find(k, len, "ST ", NULL) < 0 &&
        itf_skel_find(k, len, "MR", NULL) < 0 && itf_skel_find(k, len, "MW", NULL) < 0)
        return -1;
    int slot = 0;
    for (size_t i = 0; i < len; i += itf_skel_step(k, len, i)) {
        if (k[i] == 1) {
            slot += itf_skel_isnum(k, len, i);
            continue;
        }
        if (!itf_alnum(k[i]) || (i > 0 && itf_alnum(k[i - 1])) || i + 2 > len)
            continue;
        size_t j = i;
        while (j < len && itf_alnum(k[j]))
            j++;
        int word = (j - i == 2 && ((k[i] == 'L' && k[i + 1] == 'D') || (k[i] == 'S' && k[i + 1] == 'T')));
        if (!word && j - i >= 3 && k[i] == 'M' && (k[i + 1] == 'R' || k[i + 1] == 'W')) {
            word = 1;
            for (size_t q = i + 2; q < j; q++)
                word &= k[q] >= '0' && k[q] <= '9';
        }
        if (!word || j >= len || k[j] != ' ') {
            i = j - 1; /* (the step adds 1: the next byte is not alphanumeric) */
            continue;
        }
        uint8_t key[512];
        if (len > sizeof key)
            return -1;
        memcpy(key, k, len);
        if (key[i] == 'S')
            key[i] = 'L', key[i + 1] = 'D';
        else if (key[i] == 'M')
            key[i + 1] = 'R';
        int isnew;
        long c = itf_kmap_intern(&np->memclasses, key, len, &isnew);
        if (c < 0)
            return -2;
        *cls = (uint32_t)c;
        *store = k[i] == 'S' || k[i + 1] == 'W';
        for (size_t q = j; q < len; q += itf_skel_step(k, len, q)) /* the address: the next number */
            if (itf_skel_isnum(k, len, q))
                return slot;
        return -1;
    }
    return -1;
}

/* Room for nskel skeletons, nslots slots and ncls classes in the per-skeleton,
 * per-slot and per-class tables. */
static int np_room(itf_np *np, size_t nskel, size_t nslots, size_t ncls)
{
    if (nslots > SIZE_MAX / ITF_NP_PRED / sizeof(uint16_t) || ncls > SIZE_MAX / ITF_NP_COLS / sizeof(uint64_t))
        return -1;
    if (TZ_GROW(np->sk, np->c1, nskel) < 0)
        return -1;
    if (TZ_GROW(np->last, np->c5, nslots) < 0 || TZ_GROW(np->cost, np->c6, nslots * ITF_NP_PRED) < 0)
        return -1;
    return TZ_GROW(np->cls_last, np->c7, ncls * ITF_NP_COLS) < 0 || TZ_GROW(np->cls_gen, np->c8, ncls) < 0 ? -1 : 0;
}

int itf_np_reserve(itf_np *np, size_t nskel, size_t nslots)
{
    /* (add_skel asks for one more slot; a skeleton has at most one new class) */
    if (nslots == SIZE_MAX || np_room(np, nskel + 1, nslots + 1, nskel + 1) < 0)
        return -1;
    return itf_sem_reserve(&np->sem, nskel);
}

long itf_np_add_skel(itf_np *np, const uint8_t *k, size_t len, size_t nn, int rs)
{
    size_t id = np->nskel, cut = len, seen = 0;
    for (size_t i = 0; i < len; i += itf_skel_step(k, len, i))
        if (itf_skel_isnum(k, len, i) && ++seen == 2) {
            cut = i;
            break;
        }
    int isnew;
    long c = itf_kmap_intern(&np->classes, k, cut, &isnew);
    if (c < 0 || np_room(np, id + 1, np->nslots + nn + 1, (size_t)c + 1) < 0)
        return -1;
    uint32_t mc = 0;
    int store = 0, ms = np->v4 ? find_memslot(np, k, len, &mc, &store) : -1;
    if (ms == -2)
        return -1;
    if (isnew)
        np->cls_gen[c] = 0;
    itf_npk *K = &np->sk[id];
    *K = (itf_npk){.base = (uint32_t)np->nslots, .nn = (uint32_t)nn, .cls = (uint32_t)c, .memcls = mc,
                   .pcslot = (int16_t)(rs > 0 ? find_pcslot(k, len) : -1), .memslot = (int16_t)ms, .rs = rs > 0};
    if (itf_sem_add_skel(&np->sem, k, len, nn, K->pcslot, ms, store) < 0)
        return -1;
    np->nslots += nn;
    np->nskel++;
    return (long)id;
}

void itf_np_chunk(itf_np *np, uint64_t chunkno)
{
    /* A new stamp for every start, not the chunk number: a reader that decodes chunk 5,
     * then chunk 3, then chunk 5 again must not find chunk 5's stale state current. */
    (void)chunkno;
    np->chunk++;
    np->prevn = 0;
    memset(np->prev, 0, sizeof np->prev);
    if (np->tcount) /* a fresh index is already zero: its pages stay untouched */
        memset(np->tix, 0, np->tcap * sizeof *np->tix);
    np->tcount = 0;
    np->nslot = 0;
    if (np->mcount) /* a fresh table is already zero */
        memset(np->mtab, 0, np->mcap * sizeof *np->mtab);
    np->mcount = 0;
    itf_np_set_rpc(np, 0);
    np->rline = 0;
    np->curl = NULL;
    itf_sem_chunk(&np->sem);
}

/* The context of key, a new one (nothing seen) if there is none: room for it was
 * reserved by itf_np_ctx_reserve (itf_npline.c). The contexts themselves are dense, so a chunk touches only
 * the memory pages it fills; a table of the contexts, probed by their hash, would make
 * 50-70 pages of a Tarmac decode fault in at scattered places (each first touch costs
 * 1.5-7 us on a VM). */
itf_npl *itf_np_ctx_find(itf_np *np, uint64_t key)
{
    size_t m = np->tcap - 1, i = (size_t)(key >> 7) & m;
    for (uint32_t x; (x = np->tix[i]) != 0; i = (i + 1) & m)
        if (np->tab[x - 1].key == key)
            return &np->tab[x - 1];
    itf_npl *L = &np->tab[np->tcount];
    *L = (itf_npl){.key = key};
    np->tix[i] = (uint32_t)++np->tcount;
    return L;
}

/* itf_np_ctx_reserve's growth: room in the list, the index rebuilt at a larger size. */
int itf_np_ctx_grow(itf_np *np, size_t need)
{
    if (need > UINT32_MAX / 2 || TZ_GROW(np->tab, np->dcap, need) < 0)
        return -1;
    if (need * 2 <= np->tcap)
        return 0;
    size_t ncap = np->tcap ? np->tcap : 1024;
    while (need * 2 > ncap)
        ncap *= 2;
    _Static_assert(offsetof(itf_npl, key) == 0, "itf_oaix_build reads the key first");
    uint32_t *nx = itf_oaix_build(np->tab, np->tcount, sizeof *np->tab, 7, ncap);
    if (!nx)
        return -1;
    free(np->tix);
    np->tix = nx;
    np->tcap = ncap;
    return 0;
}

int itf_np_hint(itf_np *np, uint64_t lines)
{
    /* the Tarmac samples: one line context per 5.5-12 lines, one slot per 1.3-2 lines;
     * room is only address space until it is used (the cap keeps a huge chunk from
     * reserving more than it is likely to use) */
    size_t n = (size_t)(lines < (1u << 22) ? lines : (1u << 22));
    return np->v4 && (itf_np_ctx_reserve(np, n / 4) < 0 || itf_np_slot_reserve(np, n / 2) < 0) ? -1 : 0;
}

/* Room for `more` new keys in the memory map, at a load of at most one half (the
 * growth behind np_begin's inline check). */
int itf_np_mem_grow(itf_np *np, size_t more)
{
    if ((np->mcount + more) * 2 <= np->mcap)
        return 0;
    size_t ncap = np->mcap ? np->mcap : 256;
    while ((np->mcount + more) * 2 > ncap)
        ncap *= 2;
    struct itf_npm *nt = calloc(ncap, sizeof *nt), *old = np->mtab;
    if (!nt)
        return -1;
    size_t oc = np->mcap;
    np->mtab = nt;
    np->mcap = ncap;
    for (size_t i = 0; i < oc; i++)
        if (old[i].key)
            nt[itf_np_mem_find(np, old[i].key)] = old[i];
    free(old);
    return 0;
}

/* itf_np_slot_reserve's growth. The arena is aligned to a cache line, so that no 32-byte
 * entry straddles two: from malloc (16 bytes past a line) half of them did. */
int itf_np_slot_grow(itf_np *np, size_t need)
{
    _Static_assert(64 % sizeof(itf_npx) == 0, "an entry in one cache line");
    size_t cap = np->scap ? np->scap : 64;
    while (cap < need)
        cap *= 2;
    if (cap > SIZE_MAX / sizeof(itf_npx))
        return -1;
    itf_npx *n = aligned_alloc(64, cap * sizeof *n);
    if (!n)
        return -1;
    if (np->nslot)
        memcpy(n, np->slots, np->nslot * sizeof *n);
    free(np->slots);
    np->slots = n;
    np->scap = cap;
    return 0;
}
