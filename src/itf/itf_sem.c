/* The semantic predictor of Tarmac traces (format version 9): see itf_sem.h; the
 * texts are read by itf_sem_parse.c.
 *
 * An instruction's text is read once (per skeleton and numbers, and per pc where it
 * depends on the pc: a cache of decoded instructions) into a small record: what it
 * computes (fn), from which registers, immediate, shift; where it branches; what it
 * reads or writes. Its execution then only predicts: the registers it writes (applied
 * to the register file at once, so that a stack pointer the trace does not print, as
 * gem5's, is still followed), the flags, the next pc, the addresses of its memory
 * lines. The R lines of the trace then put the true values in the register file.
 * Nothing here can fail: text the parser does not know gives an instruction of kind
 * NONE (the next pc is then pc + 4), and the cache is a pure function of its key, so a
 * reader that starts at any chunk predicts what the writer did. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"
#include "itf/itf_sem.h"
#include "traza/itf.h"

#define ZR ITF_SEM_ZR

static uint64_t rd_reg(const itf_sem *s, int r, int w32, uint64_t pc)
{
    uint64_t v;
    if (r < 0 || r == ZR)
        v = 0;
    else if (s->isa == ITF_SEM_A32 && r == 15)
        v = pc + 8;
    else
        v = s->r[r];
    return w32 || s->isa == ITF_SEM_A32 ? v & 0xFFFFFFFFu : v;
}

static void predict_write(itf_sem *s, int r, uint64_t v)
{
    if (r < 0 || r == ZR || s->nw == 4)
        return;
    s->wreg[s->nw] = (int8_t)r;
    s->wval[s->nw++] = v;
    if (r != ITF_SEM_FLAGS)
        s->r[r] = v;
}

static int cond_holds(uint64_t cpsr, int c)
{
    int n = (int)(cpsr >> 31 & 1), z = (int)(cpsr >> 30 & 1), cy = (int)(cpsr >> 29 & 1), v = (int)(cpsr >> 28 & 1);
    int r;
    switch (c >> 1) {
    case 0: r = z; break;
    case 1: r = cy; break;
    case 2: r = n; break;
    case 3: r = v; break;
    case 4: r = cy && !z; break;
    case 5: r = n == v; break;
    case 6: r = !z && n == v; break;
    default: return 1;
    }
    return c & 1 ? !r : r;
}

/* a + b + cin on `bits` bits, its NZCV in *f */
static uint64_t add_flags(uint64_t a, uint64_t b, unsigned cin, int bits, unsigned *f)
{
    uint64_t m = bits == 64 ? ~0ull : 0xFFFFFFFFull;
    a &= m, b &= m;
    uint64_t r = (a + b + cin) & m;
    unsigned c = bits == 64 ? (r < a || (cin && r == a)) : (unsigned)((a + b + cin) >> 32 & 1);
    unsigned v = (unsigned)(((a ^ r) & (b ^ r)) >> (bits - 1) & 1);
    *f = (unsigned)(r >> (bits - 1) & 1) << 3 | (r == 0) << 2 | c << 1 | v;
    return r;
}

static uint64_t shifted(uint64_t v, int sh, unsigned amt, int bits)
{
    uint64_t m = bits == 64 ? ~0ull : 0xFFFFFFFFull;
    amt &= (unsigned)bits - 1;
    v &= m;
    switch (sh) {
    case SH_LSL: return (v << amt) & m;
    case SH_LSR: return v >> amt;
    case SH_ASR:
        return amt && v >> (bits - 1) ? ((v >> amt) | (m << (bits - amt))) & m : v >> amt;
    case SH_ROR: return amt ? ((v >> amt) | (v << (bits - amt))) & m : v;
    case SH_UXTB: return (v & 0xFF) << amt & m;
    case SH_UXTH: return (v & 0xFFFF) << amt & m;
    case SH_UXTW: return (v & 0xFFFFFFFFu) << amt & m;
    case SH_SXTB: return (uint64_t)(int64_t)(int8_t)(uint8_t)v << amt & m;
    case SH_SXTH: return (uint64_t)(int64_t)(int16_t)(uint16_t)v << amt & m;
    case SH_SXTW: return (uint64_t)(int64_t)(int32_t)(uint32_t)v << amt & m;
    default: return v << amt & m;
    }
}

static void exec_alu(itf_sem *s, const itf_sem_op *op, uint64_t pc)
{
    int bits = op->w32 || s->isa == ITF_SEM_A32 ? 32 : 64;
    uint64_t m = bits == 64 ? ~0ull : 0xFFFFFFFFull;
    uint64_t a = rd_reg(s, op->rn, bits == 32, pc), b;
    if (op->hasimm)
        b = (uint64_t)op->imm & m;
    else if (op->shreg >= 0)
        b = shifted(rd_reg(s, op->rm, bits == 32, pc), op->sh, (unsigned)rd_reg(s, op->shreg, 1, pc) & 0xFF, bits);
    else
        b = shifted(rd_reg(s, op->rm, bits == 32, pc), op->sh, op->shamt, bits);
    unsigned f = 0, cin = (unsigned)(s->cpsr >> 29 & 1);
    int flags = 0, nz = 0; /* flags: NZCV from f; nz: N and Z of the result, C and V kept */
    uint64_t r = 0, old = rd_reg(s, op->rd, 0, pc);
    unsigned sh16 = (unsigned)(op->imm2 & 63);
    switch (op->fn) {
    case F_ADD: r = add_flags(a, b, 0, bits, &f), flags = 1; break;
    case F_ADC: r = add_flags(a, b, cin, bits, &f), flags = 1; break;
    case F_SUB: r = add_flags(a, ~b, 1, bits, &f), flags = 1; break;
    case F_SBC: r = add_flags(a, ~b, cin, bits, &f), flags = 1; break;
    case F_RSB: r = add_flags(b, ~a, 1, bits, &f), flags = 1; break;
    case F_NEG: r = add_flags(0, ~b, 1, bits, &f), flags = 1; break;
    case F_AND: r = a & b, nz = 1; break;
    case F_ORR: r = a | b, nz = 1; break;
    case F_EOR: r = a ^ b, nz = 1; break;
    case F_BIC: r = a & ~b, nz = 1; break;
    case F_ORN: r = a | ~b; break;
    case F_EON: r = a ^ ~b; break;
    case F_MOV: r = b, nz = 1; break;
    case F_MVN: r = ~b, nz = 1; break;
    case F_MOVZ: r = (uint64_t)op->imm << sh16; break;
    case F_MOVN: r = ~((uint64_t)op->imm << sh16); break;
    case F_MOVK: r = (old & ~(0xFFFFull << sh16)) | ((uint64_t)op->imm & 0xFFFF) << sh16; break;
    case F_MOVW: r = (uint64_t)op->imm & 0xFFFF; break;
    case F_MOVT: r = (old & 0xFFFF) | ((uint64_t)op->imm & 0xFFFF) << 16; break;
    case F_MUL: r = a * rd_reg(s, op->rm, bits == 32, pc), nz = 1; break;
    case F_MNEG: r = 0 - a * rd_reg(s, op->rm, bits == 32, pc); break;
    case F_MADD:
    case F_MLA: r = rd_reg(s, op->ra, bits == 32, pc) + a * rd_reg(s, op->rm, bits == 32, pc), nz = 1; break;
    case F_MSUB:
    case F_MLS: r = rd_reg(s, op->ra, bits == 32, pc) - a * rd_reg(s, op->rm, bits == 32, pc); break;
    case F_UDIV: {
        uint64_t d = rd_reg(s, op->rm, bits == 32, pc);
        r = d ? a / d : 0;
        break;
    }
    case F_SDIV: {
        int64_t x = (int64_t)itf_sem_sext(a, bits - 1), y = (int64_t)itf_sem_sext(rd_reg(s, op->rm, bits == 32, pc), bits - 1);
        r = y == 0 ? 0 : (y == -1 ? 0 - (uint64_t)x : (uint64_t)(x / y));
        break;
    }
    case F_LSL: r = shifted(a, SH_LSL, (unsigned)b, bits), nz = 1; break;
    case F_LSR: r = shifted(a, SH_LSR, (unsigned)b, bits), nz = 1; break;
    case F_ASR: r = shifted(a, SH_ASR, (unsigned)b, bits), nz = 1; break;
    case F_ROR: r = shifted(a, SH_ROR, (unsigned)b, bits); break;
    case F_CLZ: {
        uint64_t v = b & m;
        r = v ? (uint64_t)(__builtin_clzll(v) - (64 - bits)) : (uint64_t)bits;
        break;
    }
    case F_CSEL:
    case F_CSINC:
    case F_CSINV:
    case F_CSNEG: {
        uint64_t y = rd_reg(s, op->rm, bits == 32, pc);
        if (cond_holds(s->cpsr, op->cond))
            r = a;
        else
            r = op->fn == F_CSEL ? y : op->fn == F_CSINC ? y + 1 : op->fn == F_CSINV ? ~y : 0 - y;
        break;
    }
    case F_CSET: r = (uint64_t)cond_holds(s->cpsr, op->cond); break;
    case F_CSETM: r = cond_holds(s->cpsr, op->cond) ? ~0ull : 0; break;
    case F_CINC: r = cond_holds(s->cpsr, op->cond) ? a + 1 : a; break;
    case F_CNEG: r = cond_holds(s->cpsr, op->cond) ? 0 - a : a; break;
    case F_SXTW: r = itf_sem_sext(a, 31); break;
    case F_SXTB: r = itf_sem_sext(a, 7); break;
    case F_SXTH: r = itf_sem_sext(a, 15); break;
    case F_UXTB: r = a & 0xFF; break;
    case F_UXTH: r = a & 0xFFFF; break;
    case F_SBFM:
    case F_UBFM:
    case F_SBFX:
    case F_UBFX: {
        unsigned immr = (unsigned)op->imm & 63, imms = (unsigned)op->imm2 & 63;
        if (op->fn == F_SBFX || op->fn == F_UBFX) { /* lsb, width */
            if (!imms || immr + imms > (unsigned)bits)
                return;
            imms = immr + imms - 1;
        }
        if (immr >= (unsigned)bits || imms >= (unsigned)bits)
            return;
        int sg = op->fn == F_SBFM || op->fn == F_SBFX;
        if (imms >= immr) {
            uint64_t v = a >> immr;
            r = sg ? itf_sem_sext(v, (int)(imms - immr)) : v & ((2ull << (imms - immr)) - 1);
        } else { /* LSL-like: bits [0, imms] to immr from the top */
            uint64_t v = sg ? itf_sem_sext(a, (int)imms) : a & ((2ull << imms) - 1);
            r = v << ((unsigned)bits - immr);
        }
        break;
    }
    case F_ADR: r = op->hastgt ? (uint64_t)op->imm : pc + (uint64_t)op->imm; break;
    case F_ADRP: r = op->hastgt ? (uint64_t)op->imm & ~0xFFFull : (pc & ~0xFFFull) + (uint64_t)op->imm; break;
    default: return;
    }
    r &= m;
    if (op->setf && (flags || nz)) {
        if (nz && s->isa == ITF_SEM_A64) /* A64 logical: C and V cleared */
            f = (unsigned)(r >> (bits - 1) & 1) << 3 | (r == 0) << 2;
        else if (nz) /* A32: C (from the shifter, not followed) and V kept */
            f = (unsigned)(r >> (bits - 1) & 1) << 3 | (r == 0) << 2 | (unsigned)(s->cpsr >> 28 & 3);
        s->cpsr = (s->cpsr & 0x0FFFFFFFull) | (uint64_t)f << 28;
        predict_write(s, ITF_SEM_FLAGS, s->cpsr);
    }
    if (!op->nodest)
        predict_write(s, op->rd, r);
}

static void exec_mem(itf_sem *s, const itf_sem_op *op, uint64_t pc)
{
    uint64_t base = rd_reg(s, op->rn, 0, pc), off = (uint64_t)op->imm;
    if (op->rm >= 0) /* gem5 names an X index W[n]; its extends are written out */
        off = shifted(rd_reg(s, op->rm, 0, pc), op->sh ? op->sh : SH_LSL, op->shamt, 64);
    uint64_t a = op->post ? base : base + off;
    unsigned bytes = op->size * (op->pair ? 2u : 1u);
    if (s->isa == ITF_SEM_A32) {
        a &= 0xFFFFFFFFu;
        s->ma = a + bytes - 1, s->mstep = -16, s->mmask = ~0xFull; /* bus lines, the highest first */
    } else {
        s->ma = a, s->mstep = op->size, s->mmask = ~0ull;
        if (!op->load) { /* the data of a store: its registers */
            uint64_t m = op->size >= 8 ? ~0ull : (1ull << (8 * op->size)) - 1;
            s->sdata[0] = rd_reg(s, op->rd, 0, pc) & m;
            s->sdata[1] = rd_reg(s, op->ra, 0, pc) & m;
            s->sok = 1;
        }
    }
    s->mok = 1;
    if (op->wb)
        predict_write(s, op->rn, op->post ? base + (uint64_t)op->imm2 : a);
}

static void exec_multi(itf_sem *s, const itf_sem_op *op, uint64_t pc)
{
    unsigned n = (unsigned)__builtin_popcount(op->list);
    uint64_t base = rd_reg(s, op->rn, 1, pc), a = op->fn == 2 ? base - 4 * n : base;
    s->ma = a + 4 * n - 1;
    s->mstep = -16;
    s->mmask = ~0xFull;
    s->mok = n != 0;
    if (op->wb)
        predict_write(s, op->rn, (op->fn == 2 ? base - 4 * n : base + 4 * n) & 0xFFFFFFFFu);
    if (op->load && op->list >> 15 & 1) /* POP {.., pc}: the next pc is loaded */
        s->npc_ok = 0;
}

static void exec_branch(itf_sem *s, const itf_sem_op *op, uint64_t pc)
{
    int a32 = s->isa == ITF_SEM_A32;
    uint64_t link = pc + 4;
    switch (op->fn) {
    case B_B:
        if (cond_holds(s->cpsr, op->cond))
            s->npc = op->tgt;
        break;
    case B_BL:
        predict_write(s, a32 ? 14 : 30, link);
        s->npc = op->tgt;
        break;
    case B_BR:
    case B_RET:
        s->npc = rd_reg(s, op->rn, 0, pc) & (a32 ? ~1ull : ~0ull);
        break;
    case B_BLR:
        s->npc = rd_reg(s, op->rn, 0, pc) & (a32 ? ~1ull : ~0ull);
        predict_write(s, a32 ? 14 : 30, link);
        break;
    case B_CBZ:
    case B_CBNZ:
        if ((rd_reg(s, op->rd, op->w32, pc) == 0) == (op->fn == B_CBZ))
            s->npc = op->tgt;
        break;
    case B_TBZ:
    case B_TBNZ:
        if ((int)(rd_reg(s, op->rd, 0, pc) >> (op->imm & 63) & 1) == (op->fn == B_TBNZ))
            s->npc = op->tgt;
        break;
    default: /* SVC: an exception */
        s->npc_ok = 0;
    }
}

/* The cache key of an instruction text: its skeleton, pc and numbers. Each step is a
 * multiply and a rotation (a bijection of h for a given number), with one finalizer at
 * the end: a finalizer per number would cost 41 instructions a record. The key only
 * finds a decoded text again, so it is not part of the format. */
static uint64_t op_key(uint32_t id, uint64_t pc, const uint64_t *nums, size_t n)
{
    uint64_t h = (pc ^ (uint64_t)id << 40) * 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ nums[i]) * 0xD6E8FEB86659FD93ull;
        h = h << 29 | h >> 35;
    }
    return tz_hash_u64(h ^ n) | 1;
}

static const itf_sem_op *cached(const itf_sem *s, uint64_t key)
{
    size_t m = s->cicap - 1;
    for (size_t i = (size_t)(key >> 11) & m; s->cidx[i]; i = (i + 1) & m)
        if (s->cent[s->cidx[i] - 1].key == key)
            return &s->cent[s->cidx[i] - 1].op;
    return NULL;
}

/* Room for the instruction of key in the cache, or the scratch op when it cannot grow. */
static itf_sem_op *cache_add(itf_sem *s, uint64_t key)
{
    if ((s->ncent + 1) * 2 > s->cicap) { /* a larger index, rebuilt */
        size_t nc = s->cicap * 2;
        _Static_assert(offsetof(struct itf_sem_ent, key) == 0, "itf_oaix_build reads the key first");
        uint32_t *x = nc <= UINT32_MAX ? itf_oaix_build(s->cent, s->ncent, sizeof *s->cent, 11, nc) : NULL;
        if (!x)
            return &s->scratch;
        free(s->cidx);
        s->cidx = x;
        s->cicap = nc;
    }
    if (TZ_GROW(s->cent, s->ccent, s->ncent + 1) < 0)
        return &s->scratch;
    size_t i = (size_t)(key >> 11) & (s->cicap - 1);
    while (s->cidx[i])
        i = (i + 1) & (s->cicap - 1);
    s->cidx[i] = (uint32_t)(s->ncent + 1);
    s->cent[s->ncent].key = key;
    return &s->cent[s->ncent++].op;
}

/* An A64 instruction whose text did not decode: gem5's bare LDP/STP, from the opcode
 * after the pc (d stays zero when that fails too). */
static void by_opcode(const itf_sem_sk *k, const uint64_t *nums, size_t nn, itf_sem_op *d)
{
    if ((size_t)k->slot + 1 < nn && !itf_sem_decode_ldstp((uint32_t)nums[k->slot + 1], d))
        memset(d, 0, sizeof *d);
}

/* The instruction of a record-start line not in the cache yet: its text decoded into
 * a new entry of key. Out of line: the hot path, a cache hit, then keeps its registers. */
static __attribute__((noinline)) const itf_sem_op *decode_new(itf_sem *s, const itf_sem_sk *k, uint64_t key,
                                                             uint64_t pc, const uint64_t *nums, size_t nn)
{
    const uint64_t *tv = nums + k->tnum;
    size_t tn = nn - k->tnum;
    itf_sem_op *d = cache_add(s, key);
    s->rb.len = 0;
    /* the room reserved at the start; a longer text is left undecoded */
    if (k->tlen + 20 * tn + 1 > s->rb.cap || itf_skel_render(&s->rb, s->text + k->toff, k->tlen, tv, tn) < 0 ||
        !itf_sem_decode(s, s->rb.s, s->rb.len, pc, d)) {
        memset(d, 0, sizeof *d);
        /* A64 may still decode from the opcode, which is the pc's: that is
         * cached per pc */
        d->notext = s->isa == ITF_SEM_A64 && !k->pcdep;
        if (s->isa == ITF_SEM_A64 && k->pcdep)
            by_opcode(k, nums, nn, d);
    }
    return d;
}

/* The record-start line (the other lines' steps: itf_npline.c). */
void itf_sem_record(itf_sem *s, uint32_t id, const itf_sem_sk *k, const uint64_t *nums, size_t nn)
{
    uint64_t pc = nums[k->slot];
    /* the counters' steps, kept after the previous record's pc */
    struct itf_sem_cnt *c = &s->ctab[s->cslot];
    c->pc = s->cpc;
    for (int j = 0; j < 2 && j < k->slot; j++) {
        c->d[j] = s->cd[j] = (int64_t)(nums[j] - s->clast[j]);
        s->clast[j] = nums[j];
    }
    s->cpc = pc;
    s->cslot = (size_t)tz_hash_u64(pc) & (ITF_SEM_CTAB - 1);
    s->nw = 0;
    s->mok = s->sok = 0;
    s->mi = 0;
    s->npc = pc + 4;
    s->npc_ok = 1;
    if (k->skip || k->tnum > nn || !k->tlen)
        return;
    /* A text without "{pc}" decodes the same at every pc: it is cached once, not once
     * per pc (an ES decode parsed 653 texts, 347 of them different). The pseudo-pc
     * ~0 (odd: no instruction's) keeps those keys apart from the per-pc ones. */
    const uint64_t *tv = nums + k->tnum;
    size_t tn = nn - k->tnum;
    uint64_t key = op_key(id, k->pcdep ? pc : ~0ull, tv, tn);
    const itf_sem_op *op = cached(s, key);
    if (!op)
        op = decode_new(s, k, key, pc, nums, nn);
    if (op->notext) {
        key = op_key(id, pc, tv, tn);
        if (!(op = cached(s, key))) {
            itf_sem_op *d = cache_add(s, key);
            memset(d, 0, sizeof *d);
            by_opcode(k, nums, nn, d);
            op = d;
        }
    }
    if (op->failed)
        return;
    switch (op->kind) {
    case K_ALU: exec_alu(s, op, pc); break;
    case K_MEM: exec_mem(s, op, pc); break;
    case K_MULTI: exec_multi(s, op, pc); break;
    case K_BR: exec_branch(s, op, pc); break;
    default: break;
    }
}

/* ---- skeletons ---- */

/* A register line: "R <name> <value>"; the value slot and the register in sk. */
static int reg_line(const itf_sem *s, const uint8_t *k, size_t len, itf_sem_sk *sk)
{
    int slot;
    long p = itf_skel_find(k, len, "R ", &slot);
    if (p < 0 || (p > 0 && k[p - 1] != ' '))
        return 0;
    size_t i = (size_t)p + 2, j = i;
    while (j < len && (itf_alnum(k[j]) || k[j] == '_'))
        j++;
    size_t q = j;
    while (q < len && k[q] == ' ')
        q++;
    if (j == i || q == j || q + 2 >= len || k[q] != 1 || k[q + 1] == 0)
        return 0;
    const char *name = (const char *)k + i;
    size_t n = j - i;
    int w = 0, r;
    if (itf_sem_word(name, n, "CPSR"))
        r = ITF_SEM_FLAGS;
    else if (n > 3 && itf_sem_word(name, 3, "SP_"))
        r = s->isa == ITF_SEM_A64 ? 31 : 13;
    else if (n > 3 && itf_sem_word(name, 3, "LR_") && s->isa == ITF_SEM_A32)
        r = 14;
    else if ((r = itf_sem_reg(s->isa, name, n, &w)) < 0 || r == ZR)
        return 0;
    sk->kind = SK_REG;
    sk->reg = (int8_t)r;
    sk->w32 = (uint8_t)w;
    sk->slot = (int16_t)slot;
    return 1;
}

/* The cache index, the counter steps and the rendering room: at the first skeleton, so
 * that opening a file for its statistics allocates none of it. The table is zeroed
 * as itf_sem_chunk leaves it (a writer's first chunk starts before its first skeleton). */
static int sem_alloc(itf_sem *s)
{
    if (s->ctab)
        return 0;
    s->cidx = calloc(ITF_SEM_CIDX, sizeof *s->cidx);
    s->cicap = ITF_SEM_CIDX;
    s->ctab = calloc(ITF_SEM_CTAB, sizeof *s->ctab);
    if (!s->cidx || !s->ctab || tz_buf_reserve(&s->rb, 4096) < 0) {
        free(s->cidx), free(s->ctab);
        s->cidx = NULL, s->ctab = NULL, s->cicap = 0;
        return -1;
    }
    return 0;
}

int itf_sem_reserve(itf_sem *s, size_t nskel)
{
    return s->isa ? -(sem_alloc(s) < 0 || TZ_GROW(s->sk, s->csk, nskel) < 0) : 0;
}

int itf_sem_add_skel(itf_sem *s, const uint8_t *k, size_t len, size_t nn, int pcslot, int memslot, int store)
{
    if (!s->isa)
        return 0;
    if (sem_alloc(s) < 0 || TZ_GROW(s->sk, s->csk, s->nsk + 1) < 0)
        return -1;
    itf_sem_sk *sk = &s->sk[s->nsk];
    memset(sk, 0, sizeof *sk);
    sk->reg = -1;
    sk->slot = -1;
    if (pcslot >= 0 && (size_t)pcslot < nn) {
        int tnum;
        long p = itf_skel_find(k, len, ": ", &tnum);
        sk->kind = SK_INSN;
        sk->slot = (int16_t)pcslot;
        sk->skip = itf_skel_find(k, len, " IS ", NULL) >= 0;
        /* only the dialect's instruction set is read: A64 " O ", A32 " A " (ARM state) */
        long o = itf_skel_find(k, len, s->isa == ITF_SEM_A64 ? " O " : " A ", NULL);
        if (p >= 0 && o >= 0 && o < p && tnum > pcslot && s->tlen + len < UINT32_MAX) {
            size_t off = (size_t)p + 2;
            if (TZ_GROW(s->text, s->tcap, s->tlen + len - off) < 0)
                return -1;
            memcpy(s->text + s->tlen, k + off, len - off);
            sk->toff = (uint32_t)s->tlen;
            sk->tlen = (uint32_t)(len - off);
            sk->tnum = (uint16_t)tnum;
            sk->pcdep = itf_skel_find(k + off, len - off, "{pc}", NULL) >= 0;
            s->tlen += len - off;
        }
    } else if (memslot >= 0) {
        sk->kind = SK_MEM, sk->slot = (int16_t)memslot;
        sk->store = (uint8_t)(store != 0);
        /* A64: "addr:phys data" or "addr:phys hi_lo" */
        int colon;
        sk->dslot = -1;
        if (s->isa == ITF_SEM_A64 && itf_skel_find(k, len, ":", &colon) >= 0 && colon == memslot + 1 &&
            (nn == (size_t)memslot + 3 || nn == (size_t)memslot + 4)) {
            sk->dslot = (int16_t)(memslot + 2);
            sk->dn = (uint8_t)(nn - (size_t)memslot - 2);
        }
    }
    else if (!reg_line(s, k, len, sk)) {
        int slot;
        long p = itf_skel_find(k, len, "BR (", &slot); /* ES: "BR (000204f0) A" */
        if (p >= 0 && (size_t)p + 5 < len && k[p + 4] == 1 && (size_t)slot < nn)
            sk->kind = SK_BR, sk->slot = (int16_t)slot;
    }
    if (sk->slot >= 0 && (size_t)sk->slot >= nn)
        sk->kind = SK_NONE, sk->slot = -1;
    /* the kind of each slot's prediction: the counters before an instruction line's
     * pc, its pc and what follows; a memory line's address, its data; a register */
    int in = sk->slot >= 0 && sk->slot < 32; /* (a slot from 32 on is never predicted) */
    uint32_t at = in ? 1u << sk->slot : 0, below = at ? at - 1 : 0;
    switch (sk->kind) {
    case SK_INSN: sk->ck[0] = C_CNT, sk->cm[0] = below, sk->ck[1] = C_PC, sk->cm[1] = ~below; break;
    case SK_BR: sk->ck[0] = sk->ck[1] = C_PC, sk->cm[0] = ~0u; break;
    case SK_MEM: sk->ck[0] = C_ADDR, sk->cm[0] = at, sk->ck[1] = C_DATA, sk->cm[1] = ~at; break;
    default: sk->ck[0] = sk->ck[1] = C_REG, sk->cm[0] = ~0u; break;
    }
    s->nsk++;
    return 0;
}

int itf_sem_init(itf_sem *s, int dialect)
{
    memset(s, 0, sizeof *s);
    if (dialect != TRAZA_ITF_TARMAC_FM && dialect != TRAZA_ITF_TARMAC_GEM5 && dialect != TRAZA_ITF_TARMAC_ES)
        return 0;
    tz_buf_init(&s->rb);
    s->isa = dialect == TRAZA_ITF_TARMAC_ES ? ITF_SEM_A32 : ITF_SEM_A64;
    itf_sem_chunk(s);
    s->gem5 = dialect == TRAZA_ITF_TARMAC_GEM5;
    return 0;
}

void itf_sem_free(itf_sem *s)
{
    free(s->sk);
    free(s->text);
    free(s->cent);
    free(s->cidx);
    free(s->ctab);
    tz_buf_free(&s->rb);
    memset(s, 0, sizeof *s);
}

void itf_sem_chunk(itf_sem *s)
{
    if (!s->isa)
        return;
    memset(s->r, 0, sizeof s->r);
    if (s->ctab)
        memset(s->ctab, 0, ITF_SEM_CTAB * sizeof *s->ctab);
    memset(s->clast, 0, sizeof s->clast);
    memset(s->cd, 0, sizeof s->cd);
    s->cpc = s->cpsr = 0;
    s->cslot = (size_t)tz_hash_u64(0) & (ITF_SEM_CTAB - 1);
    s->npc_ok = s->mok = s->sok = 0;
    for (int i = 0; i < 5; i++)
        s->conf[i] = 256;
    s->nw = s->mi = 0;
}
