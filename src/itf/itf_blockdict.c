/* What the instruction texts predict in the block model, from format version 8: the
 * blocks (BLOCK) and their variants (VAR), the branch targets' ranks (TLEN), the
 * first address of each address group (MA0, below) and the address gaps (TPC, at
 * the end of the file). Writer and reader share this file, so they make the same
 * predictions.
 *
 * In version 7 a block cost about 25 bits (its first instruction's rank, its length)
 * and a variant 3-4 bits per instruction (flags and address count), a third of the
 * dictionary of a generated trace. But the texts tell most of it. A block is found in
 * execution order, so it mostly starts at the target of the branch that ended the block
 * found before it, or just after that branch; it is contiguous and ends at a branch:
 * the first, second, ... branch from its start. And the number of data addresses of an
 * instruction is that of its last variant, or what its text says (a load or store
 * 1, ldrd/strd 2, push/pop/ldm/stm one per register), 0 when its condition failed.
 * On the seven generated traces BLOCK and VAR shrink by 70 % (the files by 1-15 %). */
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"

/* Registers in a "{r4, r5, lr}" or "{d8-d15}" list. */
static unsigned reg_count(const char *t, size_t n)
{
    const char *o = memchr(t, '{', n);
    if (!o)
        return 0;
    const char *e = memchr(o, '}', n - (size_t)(o - t));
    if (!e)
        return 0;
    unsigned c = 0;
    for (const char *p = o + 1; p < e;) {
        while (p < e && (*p == ' ' || *p == ','))
            p++;
        if (p >= e)
            break;
        const char *q = p;
        while (q < e && *q != ',')
            q++;
        /* a range "x<lo>-x<hi>" counts hi - lo + 1 */
        const char *dash = memchr(p, '-', (size_t)(q - p));
        unsigned k = 1;
        if (dash) {
            unsigned lo = 0, hi = 0;
            const char *a = p;
            while (a < dash && !(*a >= '0' && *a <= '9'))
                a++;
            for (; a < dash && *a >= '0' && *a <= '9'; a++)
                lo = lo * 10 + (unsigned)(*a - '0');
            const char *b = dash + 1;
            while (b < q && !(*b >= '0' && *b <= '9'))
                b++;
            for (; b < q && *b >= '0' && *b <= '9'; b++)
                hi = hi * 10 + (unsigned)(*b - '0');
            if (hi >= lo && hi - lo < 64)
                k = hi - lo + 1;
        }
        c += k;
        p = q;
    }
    return c > 64 ? 64 : c;
}

static int starts(const char *t, size_t m, const char *w)
{
    size_t k = strlen(w);
    return m >= k && !memcmp(t, w, k);
}

/* The data addresses an instruction's text suggests (a guess: only its cost depends on it). */
static uint8_t text_naddr(const char *t, size_t n)
{
    size_t m = itf_mnemonic_len(t, n);
    if (starts(t, m, "push") || starts(t, m, "pop") || starts(t, m, "ldm") || starts(t, m, "stm") ||
        starts(t, m, "vpush") || starts(t, m, "vpop") || starts(t, m, "vldm") || starts(t, m, "vstm"))
        return (uint8_t)reg_count(t, n);
    if (starts(t, m, "ldrd") || starts(t, m, "strd") || starts(t, m, "ldrexd") || starts(t, m, "strexd"))
        return 2;
    if (starts(t, m, "ldr") || starts(t, m, "str") || starts(t, m, "swp") || starts(t, m, "vld") ||
        starts(t, m, "vst") || starts(t, m, "tbb") || starts(t, m, "tbh"))
        return 1;
    return 0;
}

/* Rank of address a in the ascending pc[0..n), or ITF_NORANK. */
uint32_t itf_rank_of(const uint32_t *pc, size_t n, uint64_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pc[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && pc[lo] == a ? (uint32_t)lo : ITF_NORANK;
}

int itf_iclass_build(itf_iclass *c, const uint8_t *const *text, const uint32_t *len, const uint32_t *pc, size_t n)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->br = malloc(n + 1);
    c->na = malloc(n + 1);
    c->tgt = malloc((n + 1) * sizeof *c->tgt);
    c->nbr = malloc((n + 1) * sizeof *c->nbr);
    c->blist = malloc((n + 1) * sizeof *c->blist);
    c->lastna = malloc(n + 1);
    if (!c->br || !c->na || !c->tgt || !c->nbr || !c->blist || !c->lastna) {
        itf_iclass_free(c);
        return -1;
    }
    memset(c->lastna, 0xFF, n + 1);
    uint32_t nb = 0;
    for (size_t r = 0; r < n; r++) {
        const char *t = (const char *)text[r];
        size_t l = len[r];
        uint64_t v;
        size_t at;
        c->nbr[r] = nb;
        c->br[r] = (uint8_t)itf_text_is_branch(t, l);
        if (c->br[r])
            c->blist[nb++] = (uint32_t)r;
        c->tgt[r] = c->br[r] && itf_text_target(t, l, &v, &at) ? itf_rank_of(pc, n, v) : ITF_NORANK;
        c->na[r] = text_naddr(t, l);
    }
    c->nbr[n] = nb;
    c->nblist = nb;
    return 0;
}

void itf_iclass_free(itf_iclass *c)
{
    free(c->br);
    free(c->na);
    free(c->tgt);
    free(c->nbr);
    free(c->blist);
    free(c->lastna);
    memset(c, 0, sizeof *c);
}

/* BLOCK: per block, uv start code: 0 a verbatim line (the block is that one line), 1
 * the target of the previous block's last instruction, 2 the rank after it, s >= 3 the
 * rank (previous last + 1) + unzigzag(s - 3) (0 + ... for the first block and after a
 * verbatim line); then uv length code: L >= 1 a contiguous block ending at the L-th
 * branch from its start (counting its first instruction), 0 an explicit list: uv n,
 * then n - 1 times sv (rank - previous rank - 1). */
void itf_block_put(tz_buf *b, const itf_iclass *c, const uint32_t *rk, size_t n, uint32_t prev)
{
    uint32_t s = rk[0];
    if (s == ITF_NORANK) {
        itf_put_uv(b, 0);
        return;
    }
    if (prev != ITF_NORANK && c->tgt[prev] == s)
        itf_put_uv(b, 1);
    else if (prev != ITF_NORANK && s == prev + 1)
        itf_put_uv(b, 2);
    else
        itf_put_uv(b, 3 + itf_zz((int64_t)s - (prev == ITF_NORANK ? 0 : (int64_t)prev + 1)));
    size_t k = 1;
    while (k < n && rk[k] == s + k)
        k++;
    uint32_t e = s + (uint32_t)n - 1;
    if (k == n && c->br[e]) {
        itf_put_uv(b, (uint64_t)(c->nbr[e] - c->nbr[s]) + 1);
        return;
    }
    itf_put_uv(b, 0);
    itf_put_uv(b, n);
    for (k = 1; k < n; k++)
        itf_put_sv(b, (int64_t)rk[k] - (int64_t)rk[k - 1] - 1);
}

int itf_block_get(itf_rd *d, const itf_iclass *c, uint32_t prev, uint32_t *rk, size_t *np)
{
    uint64_t sc = itf_get_uv(d);
    if (d->bad)
        return -1;
    if (sc == 0) {
        rk[0] = ITF_NORANK;
        *np = 1;
        return 0;
    }
    int64_t s;
    if (sc <= 2) {
        if (prev == ITF_NORANK)
            return -1;
        s = sc == 1 ? (c->tgt[prev] == ITF_NORANK ? -1 : (int64_t)c->tgt[prev]) : (int64_t)prev + 1;
    } else {
        if (sc - 3 > (uint64_t)2 * c->n + 2)
            return -1;
        s = (prev == ITF_NORANK ? 0 : (int64_t)prev + 1) + itf_unzz(sc - 3);
    }
    if (s < 0 || (uint64_t)s >= c->n)
        return -1;
    uint64_t L = itf_get_uv(d);
    if (d->bad)
        return -1;
    if (L) {
        if (L > c->nblist) /* (also keeps the sum below from wrapping) */
            return -1;
        uint64_t i = (uint64_t)c->nbr[s] + L - 1;
        if (i >= c->nblist)
            return -1;
        uint64_t n = (uint64_t)c->blist[i] - (uint64_t)s + 1;
        if (n > ITF_MAX_BLOCK)
            return -1;
        for (uint64_t k = 0; k < n; k++)
            rk[k] = (uint32_t)s + (uint32_t)k;
        *np = (size_t)n;
        return 0;
    }
    uint64_t n = itf_get_uv(d);
    if (d->bad || n == 0 || n > ITF_MAX_BLOCK)
        return -1;
    rk[0] = (uint32_t)s;
    for (uint64_t k = 1; k < n; k++) {
        int64_t x = (int64_t)rk[k - 1] + 1 + itf_get_sv(d);
        if (d->bad || x < 0 || (uint64_t)x >= c->n)
            return -1;
        rk[k] = (uint32_t)x;
    }
    *np = (size_t)n;
    return 0;
}

/* VAR: per variant, uv block code: 0 the block after the largest one named so far (a
 * new block; 0 at first), else block id + 1; then per instruction u8 flags and uv
 * zigzag(address count - prediction): 0 for a verbatim line or a failed condition,
 * else the count of the instruction's last variant with its condition passed, else
 * the text's guess. */
void itf_var_put_block(tz_buf *b, itf_iclass *c, uint32_t bid)
{
    itf_put_uv(b, bid == c->nextb ? 0 : (uint64_t)bid + 1);
    if (bid >= c->nextb)
        c->nextb = bid + 1;
}

long itf_var_get_block(itf_rd *d, itf_iclass *c, size_t nblk)
{
    uint64_t v = itf_get_uv(d);
    uint64_t bid = v == 0 ? c->nextb : v - 1;
    if (d->bad || bid >= nblk)
        return -1;
    if (bid >= c->nextb)
        c->nextb = (uint32_t)bid + 1;
    return (long)bid;
}

static uint8_t na_pred(const itf_iclass *c, uint32_t rank, uint8_t flags)
{
    if (rank == ITF_NORANK || (flags & LF_CCFAIL))
        return 0;
    return c->lastna[rank] != 0xFF ? c->lastna[rank] : c->na[rank];
}

void itf_var_put_line(tz_buf *b, itf_iclass *c, uint32_t rank, uint8_t flags, uint32_t naddr)
{
    tz_buf_putc(b, (char)flags);
    itf_put_uv(b, itf_zz((int64_t)naddr - (int64_t)na_pred(c, rank, flags)));
    if (rank != ITF_NORANK && !(flags & LF_CCFAIL))
        c->lastna[rank] = (uint8_t)(naddr > 64 ? 64 : naddr);
}

int itf_var_get_line(itf_rd *d, itf_iclass *c, uint32_t rank, uint8_t *flags, uint32_t *naddr)
{
    if (d->p >= d->end)
        return -1;
    uint8_t fl = *d->p++;
    uint64_t z = itf_get_uv(d);
    int64_t na = (int64_t)na_pred(c, rank, fl) + itf_unzz(z);
    if (d->bad || na < 0 || na > 64)
        return -1;
    *flags = fl;
    *naddr = (uint32_t)na;
    if (rank != ITF_NORANK && !(fl & LF_CCFAIL))
        c->lastna[rank] = (uint8_t)na;
    return 0;
}

/* ---- the first address of an address group (MA0, version 8) ----
 * Version 7 stored it as the difference from the previous group's first address. But
 * "ldr r3, [fp, #-8]" reads fp - 8, and fp is what an earlier access based on fp said
 * (its address minus its offset); a push writes below sp and leaves sp there; a
 * pc-relative load reads the literal pool at pc + 8 (ARM) or pc + 4 aligned (Thumb).
 * Half to two thirds of the groups' first addresses come out exact; the others are
 * coded from the prediction all the same (a base register that changed in between is
 * mostly near). */

static int reg_index(const char *s, size_t n)
{
    static const char *const NAMES[] = {"sb", "sl", "fp", "ip", "sp", "lr", "pc"};
    if (n == 2)
        for (int k = 0; k < 7; k++)
            if (s[0] == NAMES[k][0] && s[1] == NAMES[k][1])
                return 9 + k;
    if (n >= 2 && n <= 3 && s[0] == 'r' && s[1] >= '0' && s[1] <= '9') {
        int v = s[1] - '0';
        if (n == 3) {
            if (s[2] < '0' || s[2] > '9' || v == 0)
                return -1;
            v = v * 10 + (s[2] - '0');
        }
        return v <= 15 ? v : -1;
    }
    return -1;
}

/* "#<imm>" at t[*i..n): a decimal or 0x hexadecimal, maybe negative; 1 with *v. */
static int immediate(const char *t, size_t n, size_t *i, int64_t *v)
{
    size_t k = *i;
    if (k >= n || t[k] != '#')
        return 0;
    k++;
    int neg = k < n && t[k] == '-';
    k += (size_t)neg;
    int64_t x = 0;
    size_t d0 = k;
    if (k + 1 < n && t[k] == '0' && t[k + 1] == 'x') {
        for (k += 2, d0 = k; k < n && k - d0 < 9; k++) {
            char c = t[k];
            int h = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (h < 0)
                break;
            x = x * 16 + h;
        }
    } else {
        for (; k < n && t[k] >= '0' && t[k] <= '9' && k - d0 < 10; k++)
            x = x * 10 + (t[k] - '0');
    }
    if (k == d0)
        return 0;
    *v = neg ? -x : x;
    *i = k;
    return 1;
}

/* The register name at t[*i..n) up to one of the stop characters. */
static int reg_at(const char *t, size_t n, size_t *i)
{
    size_t k = *i;
    while (k < n && t[k] != ',' && t[k] != ']' && t[k] != '!' && t[k] != ' ')
        k++;
    int r = reg_index(t + *i, k - *i);
    *i = k;
    return r;
}

void itf_amode(const char *t, size_t n, uint32_t pc, itf_am *am)
{
    memset(am, 0, sizeof *am);
    am->pc = pc;
    size_t m = itf_mnemonic_len(t, n);
    int vec = m > 0 && t[0] == 'v';
    const char *brace = memchr(t, '{', n);
    size_t b = brace ? (size_t)(brace - t) + 1 : n;
    while (b < n && t[b] == ' ')
        b++;
    int32_t sz = vec && b < n && t[b] == 'd' ? 8 : 4, cnt = (int32_t)reg_count(t, n);
    if (starts(t, m, "push") || starts(t, m, "vpush")) {
        am->kind = 1, am->reg = 13, am->off = -sz * cnt, am->wb = 1;
        return;
    }
    if (starts(t, m, "pop") || starts(t, m, "vpop")) {
        am->kind = 1, am->reg = 13, am->wb = 2, am->after = sz * cnt;
        return;
    }
    if (starts(t, m, "ldm") || starts(t, m, "stm")) {
        size_t i = m;
        while (i < n && t[i] != ' ')
            i++;
        while (i < n && t[i] == ' ')
            i++;
        int r = reg_at(t, n, &i);
        if (r < 0)
            return;
        int db = starts(t, m, "stmfd");
        for (size_t k = 3; k + 1 < m; k++)
            db |= t[k] == 'd' && t[k + 1] == 'b';
        int wb = i < n && t[i] == '!';
        am->kind = 1, am->reg = (uint8_t)r;
        am->off = db ? -4 * cnt : 0;
        am->wb = wb ? (db ? 1 : 2) : 0;
        am->after = wb && !db ? 4 * cnt : 0;
        return;
    }
    if (!(starts(t, m, "ldr") || starts(t, m, "str") || starts(t, m, "vldr") || starts(t, m, "vstr") ||
          starts(t, m, "vld") || starts(t, m, "vst")))
        return;
    const char *o = memchr(t, '[', n);
    if (!o)
        return;
    size_t i = (size_t)(o - t) + 1;
    int r = reg_at(t, n, &i);
    if (r < 0 || i >= n)
        return;
    int64_t v = 0;
    if (t[i] == ',') { /* [r, #imm] or [r, #imm]!: a register offset is no use */
        i++;
        while (i < n && t[i] == ' ')
            i++;
        if (!immediate(t, n, &i, &v) || i >= n || t[i] != ']')
            return;
        am->off = (int32_t)v;
        i++;
        am->wb = i < n && t[i] == '!';
    } else if (t[i] == ']') { /* [r], [r]! or [r], #imm (post-indexed) */
        i++;
        if (i < n && t[i] == '!')
            am->wb = 1;
        else if (i + 1 < n && t[i] == ',' && t[i + 1] == ' ') {
            size_t k = i + 2;
            if (immediate(t, n, &k, &v))
                am->wb = 2, am->after = (int32_t)v;
        }
    } else
        return;
    am->kind = r == 15 ? 2 : 1;
    am->reg = (uint8_t)r;
}

uint32_t itf_ma0_pred(const itf_ma0 *m, const itf_am *am)
{
    if (am->kind == 2)
        return (m->thumb ? ((am->pc + 4) & ~3u) : am->pc + 8) + (uint32_t)am->off;
    if (am->kind == 1 && (m->known >> am->reg & 1))
        return m->base[am->reg] + (uint32_t)am->off;
    return m->prev;
}

void itf_ma0_update(itf_ma0 *m, const itf_am *am, uint32_t a0)
{
    if (am->kind == 2) {
        if (a0 == am->pc + 8 + (uint32_t)am->off)
            m->thumb = 0;
        else if (a0 == ((am->pc + 4) & ~3u) + (uint32_t)am->off)
            m->thumb = 1;
    } else if (am->kind == 1) {
        m->base[am->reg] = am->wb == 1 ? a0 : am->wb == 2 ? a0 + (uint32_t)am->after : a0 - (uint32_t)am->off;
        m->known |= (uint16_t)(1u << am->reg);
    }
    m->prev = a0;
}

/* The entry: 2 zigzag(a0 - prediction), or 2 zigzag(a0 - previous first address) + 1
 * when that is nearer (a base register reused for other data since it was seen). */
uint64_t itf_ma0_code(itf_ma0 *m, const itf_am *am, uint32_t a0)
{
    int64_t r1 = (int32_t)(a0 - itf_ma0_pred(m, am)), r2 = (int32_t)(a0 - m->prev);
    uint64_t v = r1 != 0 && (r2 < 0 ? -r2 : r2) < (r1 < 0 ? -r1 : r1) ? 2 * itf_zz(r2) + 1 : 2 * itf_zz(r1);
    itf_ma0_update(m, am, a0);
    return v;
}

uint32_t itf_ma0_decode(itf_ma0 *m, const itf_am *am, uint64_t v)
{
    uint32_t a0 = ((v & 1) ? m->prev : itf_ma0_pred(m, am)) + (uint32_t)itf_unzz(v >> 1);
    itf_ma0_update(m, am, a0);
    return a0;
}

/* ---- instruction sizes (TPC, version 8) ----
 * The gap from one instruction's address to the next is mostly the first one's size:
 * 4 in ARM code; in Thumb code 2, or 4 for the 32-bit encodings that the text shows
 * (a .w, bl, blx to an address, and the instructions that have no 16-bit form). The
 * text alone cannot tell ARM from Thumb, so a 4-byte step where Thumb would take 2
 * switches to ARM until a 2-byte step. Only the mnemonic and the first character
 * of the operands are read: a text stored with its branch target apart (TLEN) gives
 * the same answer as the whole text. */
static const char *const T32[] = {"ldrd", "strd", "ldrex", "strex", "ldrexb", "strexb", "ldrexh", "strexh", "mrs",
                                  "msr", "ldmdb", "stmdb", "tbb", "tbh", "mla", "mls", "umull", "smull", "umlal",
                                  "smlal", "sdiv", "udiv", "ubfx", "sbfx", "bfi", "bfc", "clz", "rbit", "movw",
                                  "movt", "pld", "dmb", "dsb", "isb", "uxtab", "sxtab", "ldrsb", "ldrsh", "teq",
                                  "orn", "usat", "ssat", "rev16"};

static uint32_t thumb_size(const char *t, size_t n)
{
    size_t m = 0;
    while (m < n && t[m] != ' ')
        m++;
    for (size_t k = 0; k + 1 < m; k++)
        if (t[k] == '.' && t[k + 1] == 'w')
            return 4;
    if ((m == 2 && !memcmp(t, "bl", 2)) || (m == 3 && !memcmp(t, "blx", 3) && m + 1 < n && t[m + 1] == '#'))
        return 4;
    for (size_t k = 0; k < sizeof T32 / sizeof T32[0]; k++)
        if (strlen(T32[k]) == m && !memcmp(t, T32[k], m))
            return 4;
    return 2;
}

uint32_t itf_isize_pred(uint8_t arm, const char *t, size_t n) { return arm ? 4 : thumb_size(t, n); }

void itf_isize_update(uint8_t *arm, const char *t, size_t n, uint64_t gap)
{
    if (gap == 2)
        *arm = 0;
    else if (gap == 4 && thumb_size(t, n) == 2)
        *arm = 1;
}
