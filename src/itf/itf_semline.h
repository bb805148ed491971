/* The semantic model's per-line steps, inline: the reader's decode loop runs them for
 * every line (itf_npline.h), and as calls into itf_sem.c they cost it a call, a
 * prologue and the reloads around each (about 2 % of an ES decode). The record-start
 * line's work, a cache lookup and an execution, stays a call: itf_sem_record. */
#ifndef ITF_SEMLINE_H
#define ITF_SEMLINE_H

#include "itf/itf_sem.h"

enum { SK_NONE, SK_INSN, SK_REG, SK_MEM, SK_BR };
/* the kinds of prediction, each with its hit rate (conf) */
enum { C_CNT, C_PC, C_REG, C_ADDR, C_DATA };
#define CONF_MIN 170 /* two thirds */

/* The record-start line of skeleton k, its numbers known: decode (or find) its
 * instruction and predict the rest of the record (itf_sem.c). */
void itf_sem_record(itf_sem *s, uint32_t id, const itf_sem_sk *k, const uint64_t *nums, size_t nn);

/* The predictions of a line of skeleton k: their slots (mask), values in v. */
static inline __attribute__((always_inline)) uint32_t sem_line(const itf_sem *s, const itf_sem_sk *k, uint64_t *v)
{
    uint32_t m = 0;
    int sl = k->slot;
    if (sl < 0 || sl >= 32)
        return 0;
    switch (k->kind) {
    case SK_INSN: {
        const struct itf_sem_cnt *c = &s->ctab[s->cslot];
        for (int j = 0; j < 2 && j < sl; j++) {
            v[j] = s->clast[j] + (uint64_t)(c->pc == s->cpc ? c->d[j] : s->cd[j]);
            m |= 1u << j;
        }
    }
        /* fall through */
    case SK_BR:
        if (s->npc_ok)
            v[sl] = s->npc, m |= 1u << sl;
        return m;
    case SK_MEM:
        if (!s->mok)
            return 0;
        v[sl] = (s->ma + (uint64_t)((int64_t)s->mi * s->mstep)) & s->mmask;
        m = 1u << sl;
        if (k->store && s->sok && k->dslot >= 0 && k->dslot + k->dn <= 32 && s->mi < 2) {
            uint64_t d = s->sdata[s->mi];
            if (k->dn == 2)
                v[k->dslot] = d >> 32, v[k->dslot + 1] = d & 0xFFFFFFFFu, m |= 3u << k->dslot;
            else
                v[k->dslot] = d, m |= 1u << k->dslot;
        }
        return m;
    case SK_REG:
        for (int i = 0; i < s->nw; i++)
            if (s->wreg[i] == k->reg) {
                v[sl] = k->w32 ? s->wval[i] & 0xFFFFFFFFu : s->wval[i];
                return 1u << sl;
            }
        return 0;
    default:
        return 0;
    }
}

/* itf_sem_line (itf_sem.h): the predictions offered, those of a kind that missed
 * lately held back. */
static inline __attribute__((always_inline)) uint32_t sem_pred(const itf_sem *s, uint32_t id, uint64_t *v,
                                                               uint32_t *all)
{
    const itf_sem_sk *k = &s->sk[id];
    uint32_t m = k->kind ? sem_line(s, k, v) : 0;
    *all = m;
    if (!m)
        return 0;
    uint32_t held = (s->conf[k->ck[0]] < CONF_MIN ? k->cm[0] : 0) | (s->conf[k->ck[1]] < CONF_MIN ? k->cm[1] : 0);
    return m & ~held;
}

/* itf_sem_end (itf_sem.h): the hit rates, then the state moves on. */
static inline __attribute__((always_inline)) void sem_end(itf_sem *s, uint32_t id, const uint64_t *nums, size_t nn,
                                                          uint32_t all, const uint64_t *v)
{
    const itf_sem_sk *k = &s->sk[id];
    /* the kinds' hit rates, from every prediction made for this line (offered or not) */
    for (int h = 0; h < 2 && all; h++) {
        uint16_t *c = &s->conf[k->ck[h]];
        for (uint32_t m = all & k->cm[h]; m; m &= m - 1) {
            int j = __builtin_ctz(m);
            *c = (uint16_t)(*c - (*c >> 4) + ((size_t)j < nn && v[j] == nums[j] ? 16 : 0));
        }
    }
    switch (k->kind) {
    case SK_INSN:
        itf_sem_record(s, id, k, nums, nn);
        break;
    case SK_BR: /* ES: the branch's target, whatever was predicted */
        s->npc = nums[k->slot];
        s->npc_ok = 1;
        break;
    case SK_MEM:
        s->mi += s->mi < 65536; /* (a record of more lines predicts no more of them right) */
        break;
    case SK_REG:
        if (k->reg == ITF_SEM_FLAGS)
            s->cpsr = nums[k->slot];
        else
            s->r[k->reg] = k->w32 ? nums[k->slot] & 0xFFFFFFFFu : nums[k->slot];
        break;
    default:
        break;
    }
}

#endif
